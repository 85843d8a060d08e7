import HTTPTypes
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

    public init(appName: String, logoURL: String? = nil, supportURL: String? = nil, privacyURL: String? = nil, termsURL: String? = nil,
                appStoreID: String? = nil) {
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
        self.init(appName: configuration.appName, logoURL: branding.logoURL, supportURL: branding.supportURL, privacyURL: branding.privacyURL,
                  termsURL: branding.termsURL, appStoreID: configuration.apple.apps.lazy.compactMap(\.appStoreID).first)
    }

    /// The template's view: only what is set, so that `{{#brand.logoURL}}` skips what is not.
    var values: [String: String] {
        var values = ["appName": appName]
        for (key, value) in [("logoURL", logoURL), ("supportURL", supportURL), ("privacyURL", privacyURL), ("termsURL", termsURL),
                             ("appStoreID", appStoreID)] {
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
}

/// Renders page models with the Mustache templates of ``PageAssets`` (`Public/templates`, compiled
/// in), with the strings of the visitor's language (English where a language or a string is missing).
///
/// Every value goes through `{{ }}`, which HTML-escapes it; templates never use `{{{ }}}`.
public struct PageRenderer: Sendable {
    let library: MustacheLibrary
    /// Each language's strings, English filling its gaps: merged once, not per page.
    let tables: [String: PageStrings]
    /// What every page shows of the deployment: `{{brand.appName}}`, `{{brand.logoURL}}` ...
    let brand: [String: String]

    /// Takes the templates of `assets` (parsed when they were loaded) and their string tables.
    public init(assets: PageAssets, branding: PageBranding = PageBranding(appName: "")) {
        var library = MustacheLibrary()
        for (name, template) in assets.templates { library.register(template, named: name) }
        self.library = library
        let english = assets.strings["en"] ?? [:]
        var tables: [String: PageStrings] = [:]
        for language in Set(assets.strings.keys).union(Languages.supported) {
            tables[language] = PageStrings(language: language, table: english.merging(assets.strings[language] ?? [:]) { $1 })
        }
        self.tables = tables
        self.brand = branding.values
    }

    /// The strings of `language`, English filling any gap.
    func strings(_ language: String) -> PageStrings {
        tables[language] ?? PageStrings(language: language, table: tables["en"]?.table ?? [:])
    }

    /// The page as a response: HTML, never stored by a cache (pages carry codes and answers about them).
    func response(_ status: HTTPResponse.Status, _ page: any PageModel, strings: PageStrings) -> ImmediateResponse {
        ImmediateResponse(status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                          body: ByteBuffer(string: render(page, strings: strings)))
    }

    /// The page's HTML: the model's values by name, plus `t` (the strings), `lang` and `brand`.
    func render(_ page: any PageModel, strings: PageStrings) -> String {
        library.render(PageContext(page: page, strings: strings, brand: brand), withTemplate: type(of: page).template)
            ?? "<!doctype html><title>LinkDomain</title><p>Page unavailable.</p>"
    }
}

/// The root of a page's template context.
private struct PageContext: MustacheParent {
    let page: any PageModel
    let strings: PageStrings
    let brand: [String: String]

    func child(named name: String) -> Any? {
        switch name {
        case "t": strings.table
        case "lang": strings.language
        case "brand": brand
        default: page.child(named: name)
        }
    }
}
