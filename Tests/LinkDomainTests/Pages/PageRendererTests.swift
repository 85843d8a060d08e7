import Mustache
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Pages rendered with their constant strings written in")
struct PageRendererTests {
    /// The same page through the templates as written, every value looked up and escaped per page.
    static func plainRender(_ page: any PageModel, assets: PageAssets, strings: PageStrings, brand: [String: String]) -> String? {
        var library = MustacheLibrary()
        for (name, template) in assets.templates { library.register(template, named: name) }
        var context: [String: Any] = ["t": strings.table, "lang": strings.language, "dir": strings.direction, "brand": brand]
        let values = PageValueTree(page)
        for child in Mirror(reflecting: page).children {
            guard let label = child.label, let value = values.child(named: label) else { continue }
            context[label] = value
        }
        return library.render(context, withTemplate: type(of: page).template)
    }

    @Test(
        "every page in every language is byte for byte what the templates as written give",
        arguments: PageTextTests.models)
    func sameBytes(model: any PageModel) throws {
        let assets = try PageAssets.builtIn()
        // A brand with characters to escape, and one that looks like a tag (left to each page).
        let branding = PageBranding(
            appName: "Ada & <Co> \"Notes\"", logoURL: "https://cdn.example.com/{{logo}}.png",
            supportURL: "https://example.com/help?a=1&b='2'")
        let renderer = PageRenderer(assets: assets, branding: branding)
        for language in Languages.supported {
            let strings = renderer.strings(language)
            let expected = Self.plainRender(model, assets: assets, strings: strings, brand: branding.values)
            // The first page of a shape comes from Mustache, the next from its stencil.
            #expect(renderer.render(model, strings: strings) == expected, "\(type(of: model)) in \(language)")
            #expect(renderer.render(model, strings: strings) == expected, "\(type(of: model)) in \(language), stencil")
        }
    }

    @Test("HTML escaping matches Mustache's")
    func escaping() {
        for text in ["plain", "a<b>c", "Tom & \"Jerry\" 'x'", "é<ü>", ""] {
            #expect(HTMLText.escape(text) == (try? MustacheTemplate(string: "{{v}}"))?.render(["v": text]))
        }
    }
}
