import Mustache

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

    /// The string for `key`; the key itself when no table has it, so a gap shows rather than hides.
    subscript(_ key: String) -> String { table[key] ?? key }
}

/// Renders page models with the Mustache templates of ``PageAssets`` (`Public/templates`, compiled
/// in), with the strings of the visitor's language (English where a language or a string is missing).
///
/// Every value goes through `{{ }}`, which HTML-escapes it; templates never use `{{{ }}}`.
public struct PageRenderer: Sendable {

    let library: MustacheLibrary
    let strings: [String: [String: String]]
    /// What every page shows of the deployment: `{{brand.appName}}`, `{{brand.logoURL}}` ...
    let brand: [String: String]

    /// Takes the templates of `assets` (parsed when they were loaded) and their string tables.
    public init(assets: PageAssets, branding: PageBranding = PageBranding(appName: "")) {
        var library = MustacheLibrary()
        for (name, template) in assets.templates { library.register(template, named: name) }
        self.library = library
        self.strings = assets.strings
        self.brand = branding.values
    }

    /// The strings of `language`, English filling any gap.
    func strings(_ language: String) -> PageStrings {
        PageStrings(language: language, table: (strings["en"] ?? [:]).merging(strings[language] ?? [:]) { $1 })
    }

    /// The page's HTML: the model's properties by name, plus `t` (the strings) and `lang`.
    func render(_ page: any PageModel, strings: PageStrings) -> String {
        var context: [String: Any] = ["t": strings.table, "lang": strings.language, "brand": brand]
        for child in Mirror(reflecting: page).children {
            guard let label = child.label else { continue }
            // An absent optional is no value at all: `{{#openURL}}` must skip its section.
            let value = Mirror(reflecting: child.value)
            if value.displayStyle == .optional {
                if let wrapped = value.children.first?.value { context[label] = wrapped }
            } else {
                context[label] = child.value
            }
        }
        return library.render(context, withTemplate: type(of: page).template) ?? "<!doctype html><title>LinkDomain</title><p>Page unavailable.</p>"
    }
}
