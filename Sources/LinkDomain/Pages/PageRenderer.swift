import Foundation
import Mustache

/// Renders the pages from the Mustache templates in `Public/templates`, with the strings of the
/// visitor's language from `Public/locales` (English where a language or a string is missing).
///
/// Every value goes through `{{ }}`, which HTML-escapes it; templates never use `{{{ }}}`.
public struct PageRenderer: Sendable {
    public static let supportedLanguages = ["en", "ru", "vi", "it", "pt", "tr"]

    let library: MustacheLibrary
    let strings: [String: [String: String]]

    /// Loads templates and string tables from `publicDirectory` (the repository's `Public/`).
    public init(publicDirectory: String) async throws {
        library = try await MustacheLibrary(directory: publicDirectory + "/templates")
        var strings: [String: [String: String]] = [:]
        for language in Self.supportedLanguages {
            let data = try Data(contentsOf: URL(fileURLWithPath: "\(publicDirectory)/locales/\(language).json"))
            strings[language] = try JSONDecoder().decode([String: String].self, from: data)
        }
        self.strings = strings
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
