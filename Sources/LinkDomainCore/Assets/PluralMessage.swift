import Foundation

/// A translated sentence with one counted part, in ICU MessageFormat's plural form:
/// `The link expires in {count, plural, one {# hour} other {# hours}}.` Each language writes
/// its whole sentence (a duration's grammatical case depends on the words around it), and the
/// count's form is chosen by ``Languages/pluralCategory(_:language:)``; `#` is the number.
public struct PluralMessage: Sendable, Equatable {
    /// The text before the counted part, its forms by category (`=N` exact forms by number), and the text after.
    let prefix: String
    let forms: [PluralCategory: String]
    let exact: [Int: String]
    let suffix: String

    /// Why a message cannot be read.
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Reads `text`; a text without a `{count, plural, ...}` part is used as written.
    public init(_ text: String) throws(Problem) {
        guard let start = text.range(of: "{count, plural,") else {
            self.init(prefix: text, forms: [.other: ""], exact: [:], suffix: "")
            return
        }
        var forms: [PluralCategory: String] = [:]
        var exact: [Int: String] = [:]
        var index = start.upperBound
        func skipSpaces() {
            while index < text.endIndex, text[index] == " " || text[index] == "\n" { index = text.index(after: index) }
        }
        while true {
            skipSpaces()
            guard index < text.endIndex else { throw Problem(description: "the plural part is not closed") }
            if text[index] == "}" { break }
            let selectorStart = index
            while index < text.endIndex, text[index] != " ", text[index] != "{" { index = text.index(after: index) }
            let selector = String(text[selectorStart..<index])
            skipSpaces()
            guard index < text.endIndex, text[index] == "{" else { throw Problem(description: "\(selector) has no {form}") }
            let formStart = text.index(after: index)
            guard let formEnd = text[formStart...].firstIndex(of: "}") else { throw Problem(description: "the form of \(selector) is not closed") }
            let form = String(text[formStart..<formEnd])
            if form.contains("{") { throw Problem(description: "the form of \(selector) holds a brace") }
            if selector.hasPrefix("="), let number = Int(selector.dropFirst()) {
                exact[number] = form
            } else if let category = PluralCategory(rawValue: selector) {
                forms[category] = form
            } else {
                throw Problem(description: "\(selector) is not a plural category (zero, one, two, few, many, other) or =N")
            }
            index = text.index(after: formEnd)
        }
        guard forms[.other] != nil else { throw Problem(description: "the plural part has no other {form}") }
        self.init(prefix: String(text[..<start.lowerBound]), forms: forms, exact: exact, suffix: String(text[text.index(after: index)...]))
    }

    init(prefix: String, forms: [PluralCategory: String], exact: [Int: String], suffix: String) {
        self.prefix = prefix
        self.forms = forms
        self.exact = exact
        self.suffix = suffix
    }

    /// The sentence for `count` in `language`.
    public func text(_ count: Int, language: String) -> String {
        let form = exact[count] ?? forms[Languages.pluralCategory(count, language: language)] ?? forms[.other] ?? ""
        return prefix + form.substituting("#", with: String(count)) + suffix
    }
}

/// A code's lifetime as a mail says it: in the largest unit that divides it evenly, so the count
/// is never more than the truth (5400 s is "90 minutes", not "2 hours").
public struct SpokenDuration: Sendable, Equatable {
    public enum Unit: String, Sendable, CaseIterable {
        case minutes, hours, days
    }

    public let count: Int
    public let unit: Unit

    package init(count: Int, unit: Unit) {
        self.count = count
        self.unit = unit
    }

    /// Nil for less than a minute: such a link is described without a duration.
    public init?(seconds: Int) {
        guard seconds >= 60 else { return nil }
        if seconds % 86_400 == 0 {
            (count, unit) = (seconds / 86_400, .days)
        } else if seconds % 3600 == 0 {
            (count, unit) = (seconds / 3600, .hours)
        } else {
            (count, unit) = (seconds / 60, .minutes)
        }
    }
}
