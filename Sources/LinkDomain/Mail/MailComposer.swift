import Foundation
import LinkDomainCore
import LinkDomainStorage
import Mustache

/// Writes the mails: the template of each kind (`Public/mail/templates`, or a deployer's file of
/// the same name) filled with the recipient's language's strings and the deployment's branding.
public struct MailComposer: Sendable {
    let templates: [String: MustacheTemplate]
    /// Each language's strings (overrides merged over the built-in ones), English filling its gaps.
    let strings: [String: [String: String]]
    /// Each language's "expires in N ..." sentences, read once here (the English ones stand in
    /// for a language without its own).
    let expiries: [String: [SpokenDuration.Unit: PluralMessage]]
    let sender: MailSender
    let branding: LinkDomainConfiguration.Branding
    let appName: String
    /// The language of a mail asked in none spoken here (`pages.defaultLanguage`).
    let defaultLanguage: String

    /// Why the templates cannot be used.
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    /// The built-in templates and strings, each replaced by its file in `overrides` when there is one.
    public init(
        sender: MailSender, appName: String, branding: LinkDomainConfiguration.Branding, overrides directory: String?, defaultLanguage: String = "en"
    ) throws(Problem) {
        self.defaultLanguage = defaultLanguage
        func file(_ path: String) -> String? {
            if let directory, let text = FileManager.default.contents(atPath: directory + "/" + path).flatMap({ String(data: $0, encoding: .utf8) }) {
                return text
            }
            return PageAssets.builtInFiles["mail/" + path]
        }
        var templates: [String: MustacheTemplate] = [:]
        for name in ["action"] + MailKind.allCases.map(\.rawValue) {
            for format in ["html", "txt"] {
                let path = "templates/\(name).\(format).mustache"
                guard let source = file(path) else { continue }
                do {
                    templates["\(name).\(format)"] = try MustacheTemplate(string: source)
                } catch {
                    throw Problem(description: "\(path) is not a valid Mustache template (\(error))")
                }
            }
        }
        guard templates["action.html"] != nil, templates["action.txt"] != nil else { throw Problem(description: "the action templates are missing") }
        var strings: [String: [String: String]] = [:]
        var expiries: [String: [SpokenDuration.Unit: PluralMessage]] = [:]
        for language in Languages.supported {
            var table: [String: String] = [:]
            for text in [PageAssets.builtInFiles["mail/locales/\(language).json"], directory.flatMap { _ in file("locales/\(language).json") }] {
                guard let text else { continue }
                guard let parsed = try? JSONDecoder().decode([String: String].self, from: Data(text.utf8)) else {
                    throw Problem(description: "locales/\(language).json is not a JSON object of strings")
                }
                table.merge(parsed) { $1 }
            }
            table = Languages.isolatingPlaceholders(table, language: language)
            for unit in SpokenDuration.Unit.allCases {
                let key = Self.expiresIn(unit).rawValue
                guard let message = table[key] else { continue }
                do {
                    expiries[language, default: [:]][unit] = try PluralMessage(message)
                } catch {
                    throw Problem(description: "locales/\(language).json: \(key) is not a plural message (\(error))")
                }
            }
            strings[language] = table
        }
        self.templates = templates
        self.strings = Languages.fillingGaps(strings)
        self.expiries = expiries
        self.sender = sender
        self.branding = branding
        self.appName = appName
    }

    /// What a mail says and where its link goes.
    public struct Content: Sendable {
        public var kind: MailKind
        /// A `lang`/`X-Firebase-Locale` value; unsupported ones read English.
        public var language: String?
        public var recipient: MailAddress
        /// The address the mail is about (`{email}`): usually the recipient.
        public var email: String
        /// The other address of an email change (`{newEmail}`).
        public var newEmail: String?
        /// The action link; nil for the test mail.
        public var link: String?
        /// How long the link works, when the backend says ("expires in 1 hour"); otherwise "expires soon".
        public var validForSeconds: Int?

        public init(
            kind: MailKind, language: String?, recipient: MailAddress, email: String, newEmail: String?, link: String?, validForSeconds: Int? = nil
        ) {
            self.kind = kind
            self.language = language
            self.recipient = recipient
            self.email = email
            self.newEmail = newEmail
            self.link = link
            self.validForSeconds = validForSeconds
        }
    }

    /// The sentence that says how long a link works, per unit.
    static func expiresIn(_ unit: SpokenDuration.Unit) -> MailText {
        switch unit {
        case .minutes: .expiresInMinutes
        case .hours: .expiresInHours
        case .days: .expiresInDays
        }
    }

    /// The mail for `content`, dated `now` (seconds).
    public func compose(_ content: Content, now: Int) -> MailMessage {
        let language = Languages.language(for: content.language, otherwise: defaultLanguage)
        let table = strings[language] ?? [:]
        func filled(_ text: String) -> String {
            // One pass: an address may hold braces, and what fills one placeholder must not fill
            // another (an address `{support}@...` would otherwise read as the support address).
            text.substituting([
                ("{app}", appName), ("{email}", content.email), ("{newEmail}", content.newEmail ?? ""),
                ("{support}", branding.supportEmail ?? ""),
            ])
        }
        func text(_ key: MailText) -> String { filled(table[key.rawValue] ?? key.rawValue) }
        let texts = content.kind.texts
        var values: [String: Any] = [
            "lang": language, "dir": Languages.direction(language), "appName": appName, "accentColor": branding.accentColor,
            "subject": text(texts.subject), "heading": text(texts.heading), "greeting": text(.greeting),
            "body": text(texts.body), "notYou": text(.notYou), "sentBy": text(.sentBy),
        ]
        if let link = content.link {
            values["link"] = link
            values["button"] = texts.button.map(text) ?? ""
            values["buttonFallback"] = text(.buttonFallback)
            let duration = content.validForSeconds.flatMap(SpokenDuration.init(seconds:))
            values["expires"] =
                if let duration, let message = expiries[language]?[duration.unit] ?? expiries["en"]?[duration.unit] {
                    filled(message.text(duration.count, language: language))
                } else {
                    text(.expires)
                }
        }
        if let logo = branding.logoURL { values["logoURL"] = logo }
        if branding.supportEmail != nil { values["support"] = text(.support) }
        func render(_ format: String) -> String {
            let template = templates["\(content.kind.rawValue).\(format)"] ?? templates["action.\(format)"]
            return template?.render(values).trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        }
        return MailMessage(
            sender: sender, recipient: content.recipient, subject: text(texts.subject), text: render("txt") + "\n",
            html: render("html") + "\n", date: now, messageID: MailMessage.newMessageID(domain: sender.address.domain),
            language: language)
    }
}
