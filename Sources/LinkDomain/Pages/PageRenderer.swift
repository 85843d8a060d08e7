import Foundation
import Mustache

/// Renders the pages from the Mustache templates of ``PageAssets`` (`Public/templates`, compiled
/// in), with the strings of the visitor's language (English where a language or a string is missing).
///
/// Every value goes through `{{ }}`, which HTML-escapes it; templates never use `{{{ }}}`.
public struct PageRenderer: Sendable {
    public static let supportedLanguages = ["en", "ru", "vi", "it", "pt", "tr"]

    let library: MustacheLibrary
    let strings: [String: [String: String]]

    /// Compiles the templates of `assets` (already checked to parse) and keeps their string tables.
    public init(assets: PageAssets) throws {
        var library = MustacheLibrary()
        for (name, source) in assets.templates { try library.register(source, named: name) }
        self.library = library
        self.strings = assets.strings
    }

    /// The supported language for a `lang` parameter (`pt-BR` → `pt`), English otherwise.
    public static func language(for code: String?) -> String {
        let primary = code?.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map(String.init) ?? "en"
        return supportedLanguages.contains(primary) ? primary : "en"
    }

    /// The strings of `language`, English filling any gap.
    func table(_ language: String) -> [String: String] {
        (strings["en"] ?? [:]).merging(strings[language] ?? [:]) { $1 }
    }

    func render(_ template: String, language: String, values: [String: Any]) -> String {
        var context = values
        context["t"] = table(language)
        context["lang"] = language
        return library.render(context, withTemplate: template) ?? "<!doctype html><title>LinkDomain</title><p>Page unavailable.</p>"
    }
}
