import Mustache
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Pages from stencils are the bytes Mustache writes")
struct PageStencilTests {
    typealias Generator = HotPathPropertyTests.SeededGenerator

    /// Texts with what escaping, sentinels and case changes meet, and empty ones.
    static let alphabet = ["a", "Z", "<", ">", "&", "\"", "'", "é", "👍", " ", "{{", "}}", "\u{E000}", "\u{E001}", "3", "\n"]

    static func text(_ generator: inout Generator) -> String {
        HotPathPropertyTests.randomText(&generator, alphabet: alphabet, maximumLength: 12)
    }

    static func maybe(_ generator: inout Generator) -> String? { Bool.random(using: &generator) ? text(&generator) : nil }

    static func fields(_ generator: inout Generator) -> [HiddenField] {
        (0..<Int.random(in: 0...4, using: &generator)).map { _ in HiddenField(name: text(&generator), value: text(&generator)) }
    }

    /// A model of each template, its values drawn at random.
    static func models(_ generator: inout Generator) -> [any PageModel] {
        [
            MessagePage(
                title: text(&generator), purpose: maybe(&generator), paragraphs: (0..<Int.random(in: 0...3, using: &generator)).map { _ in text(&generator) },
                actionURL: maybe(&generator), actionLabel: maybe(&generator),
                resetRequest: Bool.random(using: &generator) ? ResetRequestForm(fields: fields(&generator)) : nil,
                newLink: Bool.random(using: &generator) ? NewLinkForm(fields: fields(&generator)) : nil,
                qrPath: maybe(&generator), qrSide: Bool.random(using: &generator) ? Int.random(in: 21...41, using: &generator) : nil),
            ConfirmActionPage(
                title: text(&generator), body: text(&generator), button: text(&generator), email: maybe(&generator),
                newEmail: maybe(&generator), fields: fields(&generator)),
            ResetPasswordPage(title: text(&generator), email: maybe(&generator), error: maybe(&generator), fields: fields(&generator)),
            LandingPage(
                title: text(&generator), body: text(&generator), continueFirst: Bool.random(using: &generator),
                pressAndHold: maybe(&generator), openURL: maybe(&generator), storeURL: maybe(&generator),
                storeLabel: maybe(&generator), webURL: maybe(&generator), inAppHelp: maybe(&generator), pageURL: maybe(&generator),
                copiedNote: maybe(&generator), appArgument: maybe(&generator), handoffURL: maybe(&generator)),
            PreviewPage(
                title: text(&generator), description: maybe(&generator), continueURL: maybe(&generator), openURL: maybe(&generator),
                storeURL: maybe(&generator), storeLabel: maybe(&generator), handoffURL: maybe(&generator)),
            SocialPage(title: text(&generator), description: maybe(&generator), imageURL: maybe(&generator)),
            DebugPage(
                title: text(&generator), shape: maybe(&generator),
                parameters: (0..<Int.random(in: 0...3, using: &generator)).map { _ in .init(name: text(&generator), value: text(&generator)) },
                flows: [.init(platform: text(&generator), outcome: text(&generator))]),
        ]
    }

    static func expected(_ page: any PageModel, assets: PageAssets, renderer: PageRenderer, language: String) -> String? {
        PageRendererTests.plainRender(page, assets: assets, strings: renderer.strings(language), brand: renderer.brand)
    }

    @Test("generated pages of every template, many to a shape, match the templates rendered as written")
    func generatedPages() throws {
        let assets = try PageAssets.builtIn()
        let branding = PageBranding(appName: "Notes & <Co>", supportURL: "https://example.com/?a=1&b=2")
        var renderer = PageRenderer(assets: assets, branding: branding)
        var generator = Generator(state: 24)
        let languages = Languages.supported.sorted()
        for round in 0..<300 {
            // A fresh renderer now and then, so that its stencils stay below their bound.
            if round.isMultiple(of: 20) { renderer = PageRenderer(assets: assets, branding: branding) }
            let language = languages[round % languages.count]
            for page in Self.models(&generator) {
                let expected = Self.expected(page, assets: assets, renderer: renderer, language: language)
                // The first page of a shape through Mustache, then through the stencil cut from it.
                #expect(renderer.render(page, strings: renderer.strings(language)) == expected, "\(type(of: page)) #\(round)")
                #expect(renderer.render(page, strings: renderer.strings(language)) == expected, "\(type(of: page)) #\(round), again")
            }
        }
        // The test is about stencils: a reset form's shape, once seen, has one.
        renderer = PageRenderer(assets: assets, branding: branding)
        let form = ResetPasswordPage(title: "Reset", email: "ada@example.com", fields: [HiddenField(name: "oobCode", value: "c")])
        _ = renderer.render(form, strings: renderer.strings("en"))
        let key = PageStencils.Key(template: ResetPasswordPage.template, language: "en", shape: PageShape(form).key)
        guard case .stencil = renderer.stencils[key] else { Issue.record("no stencil for the reset form"); return }
    }

    @Test(
        "a template that transforms a text or leaves it unescaped is rendered by Mustache every time",
        arguments: ["{{uppercased(title)}}", "{{{title}}}", "{{reversed(title)}}", "{{#sorted(paragraphs)}}{{.}},{{/sorted(paragraphs)}}"])
    func templatesStencilsCannotKeep(body: String) throws {
        var assets = try PageAssets.builtIn()
        let source = "<p>{{t.back}} {{title}}</p><i>\(body)</i>"
        assets.templateSources["message"] = source
        assets.templates["message"] = try MustacheTemplate(string: source)
        let renderer = PageRenderer(assets: assets)
        for (title, paragraphs) in [("ab", ["b", "a"]), ("Café <x>", ["x", "y", "a"]), ("zz", ["a", "b"])] {
            let page = MessagePage(title: title, paragraphs: paragraphs)
            #expect(renderer.render(page, strings: renderer.strings("en")) == Self.expected(page, assets: assets, renderer: renderer, language: "en"))
        }
        let key = PageStencils.Key(template: "message", language: "en", shape: PageShape(MessagePage(title: "zz", paragraphs: ["a", "b"])).key)
        guard case .unusable = renderer.stencils[key] else { Issue.record("a stencil for \(body)"); return }
    }

    @Test("long lists get no stencil, and the table keeps its newest shapes within its count and bytes")
    func bounded() throws {
        let assets = try PageAssets.builtIn()
        let renderer = PageRenderer(assets: assets)
        // A debug page of many parameters: rendered right, and nothing kept for its shape.
        let long = DebugPage(title: "d", parameters: (0..<200).map { .init(name: "n\($0)", value: "v<\($0)>") }, flows: [])
        #expect(renderer.render(long, strings: renderer.strings("en")) == Self.expected(long, assets: assets, renderer: renderer, language: "en"))
        #expect(renderer.stencils[PageStencils.Key(template: "debug", language: "en", shape: PageShape(long).key)] == nil)
        // More shapes than the table holds (paragraph counts in every language): the oldest go, the newest stay.
        let languages = Array(Languages.supported).sorted()
        var shapes: [(MessagePage, String)] = []
        for language in languages { for count in 1...60 { shapes.append((MessagePage(title: "t", paragraphs: (0..<count).map { "p\($0)" }), language)) } }
        for (page, language) in shapes { _ = renderer.render(page, strings: renderer.strings(language)) }
        // And debug pages of up to 25 parameters in seven languages, after them.
        for language in languages.prefix(7) {
            for count in 0..<26 {
                _ = renderer.render(
                    DebugPage(title: "d", parameters: (0..<count).map { .init(name: "n\($0)", value: "v") }, flows: []),
                    strings: renderer.strings(language))
            }
        }
        #expect(shapes.count + 7 * 26 > PageStencils.capacity)
        let usage = renderer.stencils.usage
        #expect(usage.count <= PageStencils.capacity)
        #expect(usage.bytes <= PageStencils.capacityBytes)
        func kept(_ shape: (MessagePage, String)) -> Bool {
            renderer.stencils[PageStencils.Key(template: "message", language: shape.1, shape: PageShape(shape.0).key)] != nil
        }
        #expect(!kept(shapes[0]), "the oldest shape was let go")
        #expect(kept(shapes[shapes.count - 1]), "a recent shape is kept")
        // A page of a shape let go is still right.
        #expect(
            renderer.render(shapes[0].0, strings: renderer.strings(shapes[0].1))
                == Self.expected(shapes[0].0, assets: assets, renderer: renderer, language: shapes[0].1))
    }

    @Test("a stencil cut from a broken sentinel is refused")
    func brokenSentinels() {
        #expect(PageStencil(sentinelRendering: "<p>\u{E000}0\u{E001}</p>", textCount: 1)?.slots == [0])
        #expect(PageStencil(sentinelRendering: "<p>\u{E000}1\u{E001}</p>", textCount: 1) == nil)
        #expect(PageStencil(sentinelRendering: "<p>\u{E000}0</p>", textCount: 1) == nil)
        #expect(PageStencil(sentinelRendering: "<p>\u{E000}\u{E001}</p>", textCount: 1) == nil)
        #expect(PageStencil(sentinelRendering: "<p>\u{E000}99999999\u{E001}</p>", textCount: 1) == nil)
    }
}
