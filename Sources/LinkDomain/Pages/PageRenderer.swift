import HTTPTypes
import LinkDomainCore
import LinkDomainStorage
import Mustache
import NIOCore

/// How the pages name and show the deployment's app (`branding.*`), and its App Store ID for
/// Safari's Smart App Banner.
public struct PageBranding: Sendable, Equatable {
    public var appName: String
    public var logoURL: String?
    public var supportURL: String?
    public var privacyURL: String?
    public var termsURL: String?
    public var appStoreID: String?

    public init(
        appName: String, logoURL: String? = nil, supportURL: String? = nil, privacyURL: String? = nil, termsURL: String? = nil,
        appStoreID: String? = nil
    ) {
        self.appName = appName
        self.logoURL = logoURL
        self.supportURL = supportURL
        self.privacyURL = privacyURL
        self.termsURL = termsURL
        self.appStoreID = appStoreID
    }

    /// The configuration's: its app name (the public host without one), links, and the first Apple app's App Store ID.
    public init(_ configuration: LinkDomainConfiguration) {
        let branding = configuration.branding
        self.init(
            appName: configuration.appName, logoURL: branding.logoURL, supportURL: branding.supportURL, privacyURL: branding.privacyURL,
            termsURL: branding.termsURL, appStoreID: configuration.apple.apps.lazy.compactMap(\.appStoreID).first)
    }

    /// The template's view: only what is set, so that `{{#brand.logoURL}}` skips what is not.
    var values: [String: String] {
        var values = ["appName": appName]
        for (key, value) in [
            ("logoURL", logoURL), ("supportURL", supportURL), ("privacyURL", privacyURL), ("termsURL", termsURL),
            ("appStoreID", appStoreID),
        ] {
            if let value { values[key] = value }
        }
        if supportURL != nil || privacyURL != nil || termsURL != nil { values["footer"] = "yes" }
        return values
    }
}

/// The pages' words in one language, English filling any gap.
struct PageStrings: Sendable {
    let language: String
    let table: [String: String]

    /// The string for `text`; its key when no table has it (a custom `publicDirectory` with fewer
    /// strings: the built-in tables have every key, a test holds them to ``PageText``).
    subscript(_ text: PageText) -> String { table[text.rawValue] ?? text.rawValue }

    /// `rtl` for Arabic, Persian and Hebrew, else `ltr`: the page's `dir`.
    var direction: String { Languages.direction(language) }
}

/// Renders page models with the Mustache templates of ``PageAssets`` (`Public/templates`, compiled
/// in), with the strings of the visitor's language (English where a language or a string is missing).
///
/// Every value goes through `{{ }}`, which HTML-escapes it; templates never use `{{{ }}}`.
public struct PageRenderer: Sendable {
    /// Each language's templates, with what is the same on every page of that language (the
    /// strings, `lang`, the deployment's branding) already written in: rendering a page then
    /// looks up and escapes only the page's own values (the profile showed the lookups and the
    /// escaping of the constant strings as most of a landing page's time, BENCHMARKS.md).
    let libraries: PageLibraries
    /// Each language's strings, English filling its gaps: merged once, not per page.
    let tables: [String: PageStrings]
    /// What every page shows of the deployment: `{{brand.appName}}`, `{{brand.logoURL}}` ...
    let brand: [String: String]
    /// Each page shape's bytes, made on its first page (``PageStencil``).
    let stencils = PageStencils()
    /// False when a template names a partial by a value (`{{>*name}}`): then a value chooses
    /// bytes, and no stencil is cut.
    let stencilsHold: Bool

    /// Takes the templates of `assets` (parsed when they were loaded) and their string tables.
    public init(assets: PageAssets, branding: PageBranding = PageBranding(appName: "")) {
        let brand = branding.values
        tables = Languages.fillingGaps(assets.strings).reduce(into: [:]) { $0[$1.key] = PageStrings(language: $1.key, table: $1.value) }
        libraries = PageLibraries(assets: assets, brand: brand)
        self.brand = brand
        stencilsHold = !assets.templateSources.values.contains { $0.contains("{{>*") || $0.contains("{{<*") }
    }

    /// The strings of `language`, English filling any gap.
    func strings(_ language: String) -> PageStrings {
        tables[language] ?? PageStrings(language: language, table: tables["en"]?.table ?? [:])
    }

    /// The page as a response: HTML, never stored by a cache (pages carry codes and answers about them).
    func response(_ status: HTTPResponse.Status, _ page: some PageModel, strings: PageStrings) -> ImmediateResponse {
        ImmediateResponse(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: html(page, strings: strings))
    }

    /// The page's HTML as text.
    func render(_ page: some PageModel, strings: PageStrings) -> String { String(buffer: html(page, strings: strings)) }

    /// The page's HTML: from its shape's stencil when there is one, else from Mustache (which
    /// then cuts the stencil for the next page of this shape).
    func html(_ page: some PageModel, strings: PageStrings) -> ByteBuffer {
        let shape = PageShape(page)
        let key = PageStencils.Key(template: type(of: page).template, language: strings.language, shape: shape.key)
        let (entry, hasRoom) = stencils.entry(key, textCount: shape.texts.count)
        switch entry {
        case .stencil(let stencil): return stencil.page(shape.texts)
        case .unusable: return ByteBuffer(string: mustache(page, texts: .asIs, strings: strings))
        case nil: break
        }
        let html = mustache(page, texts: .asIs, strings: strings)
        guard hasRoom else { return ByteBuffer(string: html) }
        stencils.store(stencil(page, shape: shape, html: html, strings: strings).map(PageStencils.Entry.stencil) ?? .unusable, for: key)
        return ByteBuffer(string: html)
    }

    /// The stencil for `page`'s shape, when it gives `html` for `page` and what Mustache gives for probe texts.
    private func stencil(_ page: some PageModel, shape: PageShape, html: String, strings: PageStrings) -> PageStencil? {
        guard stencilsHold,
            let stencil = PageStencil(
                sentinelRendering: mustache(page, texts: .sentinels, strings: strings),
                textCount: shape.texts.count),
            String(buffer: stencil.page(shape.texts)) == html
        else { return nil }
        let probes = shape.texts.indices.map(PageStencil.probe)
        return String(buffer: stencil.page(probes)) == mustache(page, texts: .probes, strings: strings) ? stencil : nil
    }

    /// The page through Mustache: the model's values by name, plus `t` (the strings), `lang` and `brand`.
    private func mustache(_ page: some PageModel, texts: PageValueTree.Texts, strings: PageStrings) -> String {
        let context = PageContext(page: PageValueTree(page, texts: texts), strings: strings, brand: brand)
        // A language without a table of its own (a custom `publicDirectory`) takes English's templates.
        return (tables[strings.language] ?? tables["en"]).map { libraries.library($0) }?.render(context, withTemplate: type(of: page).template)
            ?? "<!doctype html><title>LinkDomain</title><p>Page unavailable.</p>"
    }
}

/// Writes the values that are the same on every page of a language into a template's text:
/// `{{t.key}}`, `{{lang}}` and `{{brand.name}}`, HTML-escaped as `{{ }}` would escape them.
enum ConstantValues {
    /// The template with those tags filled, parsed; nil when it does not parse (the original serves).
    static func fill(_ source: String, strings: PageStrings, brand: [String: String]) -> MustacheTemplate? {
        let filled = source.replacing(/\{\{(t\.[a-z_]+|lang|dir|brand\.[A-Za-z]+)\}\}/) { match -> String in
            let name = match.output.1
            let value: String? =
                if name == "lang" {
                    strings.language
                } else if name == "dir" {
                    strings.direction
                } else if name.hasPrefix("t.") {
                    strings.table[String(name.dropFirst(2))]
                } else {
                    brand[String(name.dropFirst(6))]
                }
            // A value that is absent (a section decides) or looks like a tag stays a tag, read per page.
            guard let value, !value.contains("{{"), !value.contains("}}") else { return String(match.output.0) }
            return HTMLText.escape(value)
        }
        return try? MustacheTemplate(string: ByteEscapedHTML.pragma + filled)
    }
}

/// The same escaping as Mustache's own HTML content type, over bytes: the page's own values (long
/// URLs among them) are escaped per page, and its character-by-character escaping showed in the
/// profile. The filled templates name it in a pragma.
struct ByteEscapedHTML: MustacheContentType {
    static let name = "LinkDomainHTML"
    static let pragma: String = {
        MustacheContentTypes.register(ByteEscapedHTML(), named: name)
        return "{{% CONTENT_TYPE: \(name)}}"
    }()

    func escapeText(_ text: String) -> String { HTMLText.escape(text) }
}

/// The root of a page's template context.
private struct PageContext: MustacheParent {
    let page: PageValueTree
    let strings: PageStrings
    let brand: [String: String]

    func child(named name: String) -> Any? {
        switch name {
        case "t": strings.table
        case "lang": strings.language
        case "dir": strings.direction
        case "brand": brand
        default: page.child(named: name)
        }
    }
}
