/// The languages pages and mails speak (each has a string table under `Public/locales/` and
/// `Public/mail/locales/`), and how a visitor's or a link's language code picks one.
public enum Languages {
    public static let supported = ["en", "ru", "vi", "it", "pt", "pt-PT", "tr"]

    /// The supported language for a `lang` parameter: `pt-PT` (and `pt_pt`) is European Portuguese,
    /// `pt` and `pt-BR` Brazilian; otherwise the primary tag (`it-CH` → `it`), English when unsupported.
    public static func language(for code: String?) -> String {
        let parts = code?.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).map(String.init) ?? []
        let primary = parts.first ?? "en"
        if primary == "pt", parts.dropFirst().first == "pt" { return "pt-PT" }
        return supported.contains(primary) ? primary : "en"
    }

    /// The supported language a visitor's `Accept-Language` asks for first, English when none.
    public static func language(forAcceptLanguage value: String?) -> String {
        language(for: firstTag(ofAcceptLanguage: value))
    }

    /// The first language tag of an `Accept-Language` value (`de-CH, de;q=0.9` → `de-CH`); nil when
    /// it has none (`Accept-Language: ;` has no tag at all: every step may come up empty).
    public static func firstTag(ofAcceptLanguage value: String?) -> String? {
        value?.split(separator: ",").first?.split(separator: ";").first.map { String($0.filter { $0 != " " && $0 != "\t" }) }
    }
}
