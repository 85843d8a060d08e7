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
        let lastDigit = number % 10
        let lastTwo = number % 100
        let isMillions = number != 0 && number % 1_000_000 == 0
        switch language {
        case "ja", "ko", "zh-CN", "zh-TW", "th", "id", "vi":
            return .other
        case "ru", "uk":
            if lastDigit == 1 && lastTwo != 11 { return .one }
            if (2...4).contains(lastDigit) && !(12...14).contains(lastTwo) { return .few }
            return .many
        case "pl":
            if number == 1 { return .one }
            if (2...4).contains(lastDigit) && !(12...14).contains(lastTwo) { return .few }
            return .many
        case "cs", "sk":
            if number == 1 { return .one }
            return (2...4).contains(number) ? .few : .other
        case "hr", "sr":
            if lastDigit == 1 && lastTwo != 11 { return .one }
            return (2...4).contains(lastDigit) && !(12...14).contains(lastTwo) ? .few : .other
        case "sl":
            switch lastTwo {
            case 1: return .one
            case 2: return .two
            case 3, 4: return .few
            default: return .other
            }
        case "lt":
            if (11...19).contains(lastTwo) { return .other }
            if lastDigit == 1 { return .one }
            return lastDigit >= 2 ? .few : .other
        case "lv":
            if lastDigit == 0 || (11...19).contains(lastTwo) { return .zero }
            return lastDigit == 1 && lastTwo != 11 ? .one : .other
        case "ro":
            if number == 1 { return .one }
            return number == 0 || (1...19).contains(lastTwo) ? .few : .other
        case "ar":
            switch number {
            case 0: return .zero
            case 1: return .one
            case 2: return .two
            default: return (3...10).contains(lastTwo) ? .few : (11...99).contains(lastTwo) ? .many : .other
            }
        case "he":
            return number == 1 ? .one : number == 2 ? .two : .other
        case "fil":
            return [4, 6, 9].contains(lastDigit) ? .other : .one
        case "hi", "fa", "pt":
            // 0 and 1 alike ("0 hora", "1 hora" in Brazilian Portuguese).
            if number <= 1 { return .one }
            return language == "pt" && isMillions ? .many : .other
        case "fr":
            if number <= 1 { return .one }
            return isMillions ? .many : .other
        case "it", "pt-PT", "es", "es-419", "ca":
            if number == 1 { return .one }
            return isMillions ? .many : .other
        default:
            // en, en-GB, bg, da, de, el, fi, hu, nl, no, sv, tr.
            return number == 1 ? .one : .other
        }
    }
}
