/// The languages the pages and mails speak, and how a request's language is chosen.
public enum Languages {
    public static let supported = ["en", "ru", "vi", "it", "pt", "pt-PT", "tr"]

    /// The supported language for a `lang` parameter: `pt-PT` (and `pt_pt`) is European Portuguese,
    /// `pt` and `pt-BR` Brazilian; otherwise the primary tag (`it-CH` → `it`), English when unsupported.
    public static func language(for code: String?) -> String {
        code.flatMap { spoken(Substring($0)) } ?? "en"
    }

    /// The supported language a tag names, nil when the pages do not speak it.
    package static func spoken(_ tag: Substring) -> String? {
        let parts = tag.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" })
        guard let primary = parts.first.map(String.init) else { return nil }
        if primary == "pt", parts.dropFirst().first == "pt" { return "pt-PT" }
        return supported.contains(primary) ? primary : nil
    }

    /// The supported language a visitor's `Accept-Language` prefers: its tags walked by quality
    /// value (`q`, 1 when absent; `q=0` means "not this one"), in the order written among equals;
    /// English when none is spoken here.
    public static func language(forAcceptLanguage value: String?) -> String {
        language(preferring: nil, acceptLanguage: value)
    }

    /// The language of a page whose link may name one (`lang`, `languageCode`): the link's when the
    /// pages speak it, else the visitor's `Accept-Language`, else English.
    public static func language(preferring linkLanguage: String?, acceptLanguage: String?) -> String {
        if let linkLanguage, let spoken = spoken(Substring(linkLanguage)) { return spoken }
        guard let acceptLanguage else { return "en" }
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
        return best?.language ?? "en"
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
