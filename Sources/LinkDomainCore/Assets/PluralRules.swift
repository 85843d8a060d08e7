/// CLDR's plural categories: which form of a counted phrase a language uses for a number
/// ("1 hour", "2 hours"; Russian "1 час", "2 часа", "5 часов"). See docs/mail.md, "Durations".
public enum PluralCategory: String, Sendable, CaseIterable {
    case zero, one, two, few, many, other
}

extension Languages {
    /// The CLDR plural category of the whole number `count` in `language` (one of ``supported``;
    /// any other reads as English). Whole numbers only: the mails count minutes, hours and days.
    public static func pluralCategory(_ count: Int, language: String) -> PluralCategory {
        // `magnitude` keeps Int.min from trapping; the rules look at the absolute value.
        let number = count.magnitude
        switch language {
        case "vi":
            return .other
        case "ru":
            let lastDigit = number % 10
            let lastTwo = number % 100
            if lastDigit == 1 && lastTwo != 11 { return .one }
            if (2...4).contains(lastDigit) && !(12...14).contains(lastTwo) { return .few }
            return .many
        case "pt":
            // Brazilian Portuguese counts 0 and 1 alike ("0 hora", "1 hora").
            if number <= 1 { return .one }
            return number != 0 && number % 1_000_000 == 0 ? .many : .other
        case "it", "pt-PT":
            if number == 1 { return .one }
            return number != 0 && number % 1_000_000 == 0 ? .many : .other
        default:
            // en, tr.
            return number == 1 ? .one : .other
        }
    }
}
