/// The languages the pages and mails speak, and how a request's language is chosen
/// (docs/design/languages.md).
public enum Languages {
    /// Firebase's template languages.
    public static let supported = [
        "en", "en-GB", "ar", "bg", "ca", "cs", "da", "de", "el", "es", "es-419", "fa", "fi", "fil", "fr", "he", "hi", "hr", "hu", "id", "it",
        "ja", "ko", "lt", "lv", "nl", "no", "pl", "pt", "pt-PT", "ro", "ru", "sk", "sl", "sr", "sv", "th", "tr", "uk", "vi", "zh-CN", "zh-TW",
    ]

    /// The languages written right to left.
    public static let rightToLeft: Set<String> = ["ar", "fa", "he"]

    /// Whether `language` (one of ``supported``) is written right to left.
    public static func isRightToLeft(_ language: String) -> Bool { rightToLeft.contains(language) }

    /// `language`'s HTML `dir`: `rtl` or `ltr`.
    public static func direction(_ language: String) -> String { isRightToLeft(language) ? "rtl" : "ltr" }

    /// `language`'s string table as pages and mails use it: for a right-to-left language, each
    /// `{placeholder}` between Unicode's first-strong isolate and its pop (U+2068, U+2069), so that
    /// an address, a link or an app's name filled in there keeps its own direction and cannot
    /// reorder the words around it (`user@example.com` never reads backwards). Invisible, and the
    /// same in a page, a mail's HTML and its plain text. Other languages' tables as written.
    public static func isolatingPlaceholders(_ table: [String: String], language: String) -> [String: String] {
        guard isRightToLeft(language) else { return table }
        // A regex literal is parsed each time it is evaluated: once for the table, not once a string.
        let placeholder = /\{[A-Za-z]+\}/
        return table.mapValues { text in
            text.replacing(placeholder) { "\u{2068}" + $0.output + "\u{2069}" }
        }
    }

    /// Each table of `tables` (by language), and one for every supported language, with English's
    /// strings filling its gaps: merged once when the tables load, not at each page or mail.
    public static func fillingGaps(_ tables: [String: [String: String]]) -> [String: [String: String]] {
        let english = tables["en"] ?? [:]
        var filled: [String: [String: String]] = [:]
        for language in Set(tables.keys).union(supported) {
            filled[language] = english.merging(tables[language] ?? [:]) { $1 }
        }
        return filled
    }

    /// The supported language for a `lang` parameter (``spoken(_:)``); `defaultLanguage`
    /// (`pages.defaultLanguage`) when it names none spoken here.
    public static func language(for code: String?, otherwise defaultLanguage: String) -> String {
        code.flatMap { spoken(Substring($0)) } ?? defaultLanguage
    }

    /// The supported language a tag names, by its fallbacks (`es-MX` → `es-419`, `zh-HK` → `zh-TW`,
    /// `pt-BR` → `pt`, `nb` → `no`, `iw` → `he`...; otherwise the primary tag, `it-CH` → `it`); nil
    /// when the pages do not speak it. Case and `_` are folded.
    package static func spoken(_ tag: Substring) -> String? {
        // A tag is at most a few short subtags: anything longer names nothing here.
        guard tag.utf8.count <= 35 else { return nil }
        let parts = tag.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" })
        guard let primary = parts.first.map(String.init) else { return nil }
        let subtags = Set(parts.dropFirst().map(String.init))
        switch primary {
        case "pt":
            return subtags.isEmpty || subtags.contains("br") ? "pt" : "pt-PT"
        case "zh":
            return subtags.isDisjoint(with: ["hant", "tw", "hk", "mo"]) ? "zh-CN" : "zh-TW"
        case "es":
            return subtags.isEmpty || subtags.contains("es") ? "es" : "es-419"
        case "en":
            return subtags.isDisjoint(with: ["gb", "uk", "ie", "au", "nz", "in", "za"]) ? "en" : "en-GB"
        case "nb", "nn", "no": return "no"
        case "iw": return "he"
        case "tl": return "fil"
        case "in": return "id"
        default: return supported.contains(primary) ? primary : nil
        }
    }

    /// The supported language a visitor's `Accept-Language` prefers: its tags walked by quality
    /// value (`q`, 1 when absent; `q=0` means "not this one"), in the order written among equals;
    /// `defaultLanguage` when none is spoken here.
    public static func language(forAcceptLanguage value: String?, otherwise defaultLanguage: String) -> String {
        language(preferring: nil, acceptLanguage: value, otherwise: defaultLanguage)
    }

    /// The language of a page whose link may name one (`lang`, `languageCode`): the link's when the
    /// pages speak it, else the visitor's `Accept-Language`, else `defaultLanguage`
    /// (`pages.defaultLanguage`, one of ``supported``).
    public static func language(preferring linkLanguage: String?, acceptLanguage: String?, otherwise defaultLanguage: String) -> String {
        if let linkLanguage, let spoken = spoken(Substring(linkLanguage)) { return spoken }
        guard let acceptLanguage else { return defaultLanguage }
        var best: (language: String, quality: Int)?
        // A header of hundreds of tags costs no more than its first few dozen.
        for entry in acceptLanguage.split(separator: ",", maxSplits: maximumTags, omittingEmptySubsequences: true).prefix(maximumTags) {
            let parts = entry.split(separator: ";")
            guard let tag = parts.first?.trimmingBlanks, !tag.isEmpty, tag != "*" else { continue }
            // A malformed `q` counts as 0: a tag whose weight cannot be read is not chosen.
            let quality = parts.dropFirst().lazy.compactMap(qualityValue).first ?? 1000
            guard quality > 0, quality > (best?.quality ?? 0), let language = spoken(tag) else { continue }
            best = (language, quality)
            if quality == 1000 { break }
        }
        return best?.language ?? defaultLanguage
    }

    static let maximumTags = 32

    /// `q=0.8` as thousandths (800); 0 for a malformed `q`; nil for any other parameter.
    static func qualityValue(_ parameter: Substring) -> Int? {
        let parameter = parameter.trimmingBlanks
        guard parameter.hasPrefix("q=") || parameter.hasPrefix("Q=") else { return nil }
        let number = parameter.dropFirst(2)
        guard number.count <= 5, let first = number.first, first == "0" || first == "1" else { return 0 }
        let fraction = number.dropFirst()
        if fraction.isEmpty { return first == "1" ? 1000 : 0 }
        guard fraction.first == "." else { return 0 }
        var thousandths = 0
        var scale = 100
        for character in fraction.dropFirst() {
            guard character.isASCII, let digit = character.wholeNumberValue else { return 0 }
            thousandths += digit * scale
            scale /= 10
        }
        return first == "1" ? (thousandths == 0 ? 1000 : 0) : thousandths
    }
}

extension Substring {
    fileprivate var trimmingBlanks: Substring {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else { return "" }
        return self[first...last]
    }
}
