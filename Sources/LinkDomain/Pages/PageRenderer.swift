import Mustache

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
    public static let supportedLanguages = ["en", "ru", "vi", "it", "pt", "tr"]

    let library: MustacheLibrary
    let strings: [String: [String: String]]

    /// Takes the templates of `assets` (parsed when they were loaded) and their string tables.
    public init(assets: PageAssets) {
        var library = MustacheLibrary()
        for (name, template) in assets.templates { library.register(template, named: name) }
        self.library = library
        self.strings = assets.strings
    }

    /// The supported language for a `lang` parameter (`pt-BR` → `pt`), English otherwise.
    public static func language(for code: String?) -> String {
        let primary = code?.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map(String.init) ?? "en"
        return supportedLanguages.contains(primary) ? primary : "en"
    }

    /// The strings of `language`, English filling any gap.
    func strings(_ language: String) -> PageStrings {
        PageStrings(language: language, table: (strings["en"] ?? [:]).merging(strings[language] ?? [:]) { $1 })
    }

    /// The page's HTML: the model's properties by name, plus `t` (the strings) and `lang`.
    func render(_ page: any PageModel, strings: PageStrings) -> String {
        var context: [String: Any] = ["t": strings.table, "lang": strings.language]
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
