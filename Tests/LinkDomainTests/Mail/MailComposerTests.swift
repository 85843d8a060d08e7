import Foundation
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Mails as recipients read them: every kind in every language, branded, overridable by file")
struct MailComposerTests {
    static let sender = MailSender(name: "Example App", address: MailAddress("noreply@example.com")!)

    static func composer(overrides: String? = nil) throws -> MailComposer {
        var branding = LinkDomainConfiguration.Branding()
        branding.supportEmail = "help@example.com"
        branding.accentColor = "#aa3300"
        return try MailComposer(sender: sender, appName: "Example <App>", branding: branding, overrides: overrides)
    }

    @Test(
        "every kind, every language: its own subject and words, placeholders filled, the link in both parts, HTML escaped",
        arguments: MailKind.allCases)
    func everyKind(kind: MailKind) throws {
        let composer = try Self.composer()
        var subjects: Set<String> = []
        for language in Languages.supported {
            let link = kind == .test ? nil : "https://links.example.com/__/auth/action?mode=x&oobCode=C&lang=\(language)"
            let mail = composer.compose(
                .init(
                    kind: kind, language: language, recipient: MailAddress("new@example.com")!, email: "new@example.com",
                    newEmail: "old@example.com", link: link), now: 0)
            if language != "en-GB" { subjects.insert(mail.subject) }
            for text in [mail.subject, mail.text, mail.html] {
                #expect(!text.contains("{app}") && !text.contains("{email}") && !text.contains("{newEmail}") && !text.contains("{support}"))
                #expect(!text.contains("_subject") && !text.contains("_body") && !text.contains("_button"), "a missing string in \(language)")
            }
            #expect(mail.subject.contains("Example <App>") && mail.html.contains("Example &lt;App&gt;") && !mail.html.contains("Example <App>"))
            #expect(mail.text.contains("help@example.com") && mail.html.contains("help@example.com"))
            #expect(mail.html.contains("<html lang=\"\(language)\" dir=\"\(Languages.isRightToLeft(language) ? "rtl" : "ltr")\">"))
            if let link {
                #expect(mail.text.contains(link) && mail.html.contains(link.replacingOccurrences(of: "&", with: "&amp;")))
                #expect(mail.html.contains("background:#aa3300"))
            }
        }
        // British English shares the English subjects; every other language has its own, Spain's and
        // Latin America's Spanish at times alike.
        #expect(subjects.count >= Languages.supported.count - 2, "each language has its own subject")
    }

    @Test("an address that holds a placeholder is shown as written, never filled in turn")
    func addressesAreNotFilled() throws {
        // Whoever changed the address chose it: the recovery mail to the old address must name it as it is.
        let mail = try Self.composer().compose(
            .init(
                kind: .recoverEmail, language: "en", recipient: MailAddress("old@example.com")!, email: "old@example.com",
                newEmail: "{support}@evil.example", link: "https://links.example.com/__/auth/action?mode=recoverEmail&oobCode=C"), now: 0)
        #expect(mail.text.contains("from old@example.com to {support}@evil.example."))
        #expect(!mail.text.contains("help@example.com@evil.example"))
    }

    @Test("a deployer's file replaces one kind's template and merges strings over the built-in ones")
    func overrides() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mail-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("templates"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("locales"), withIntermediateDirectories: true)
        try "{{% CONTENT_TYPE: TEXT}}Custom: {{link}}".write(
            to: directory.appendingPathComponent("templates/sign-in.txt.mustache"), atomically: true, encoding: .utf8)
        try #"{"sign_in_subject": "Your {app} link"}"#.write(to: directory.appendingPathComponent("locales/en.json"), atomically: true, encoding: .utf8)
        let composer = try Self.composer(overrides: directory.path)
        let mail = composer.compose(
            .init(
                kind: .signIn, language: "en", recipient: MailAddress("a@example.com")!, email: "a@example.com",
                newEmail: nil, link: "https://l.example.com/x?a=1&b=2"), now: 0)
        #expect(mail.subject == "Your Example <App> link")
        #expect(mail.text == "Custom: https://l.example.com/x?a=1&b=2\n")
        #expect(mail.html.contains("Sign in"))  // the built-in HTML is kept
        try "{{#broken}}".write(to: directory.appendingPathComponent("templates/sign-in.html.mustache"), atomically: true, encoding: .utf8)
        #expect(throws: MailComposer.Problem.self) { try Self.composer(overrides: directory.path) }
    }

    @Test("the mail says how long its link works, in the recipient's grammar; without a known lifetime, \"soon\"")
    func durations() throws {
        let composer = try Self.composer()
        func expiry(_ language: String, _ seconds: Int?) -> String {
            composer.compose(
                .init(
                    kind: .resetPassword, language: language, recipient: MailAddress("a@example.com")!, email: "a@example.com",
                    newEmail: nil, link: "https://l.example.com/x", validForSeconds: seconds), now: 0
            ).text
        }
        #expect(expiry("en", 3600).contains("expires in 1 hour."))
        #expect(expiry("en", 21_600).contains("expires in 6 hours."))
        #expect(expiry("en", 259_200).contains("expires in 3 days."))
        #expect(expiry("en", 900).contains("expires in 15 minutes."))
        #expect(expiry("en", nil).contains("expires soon."))
        #expect(expiry("ru", 3600).contains("через 1 час."))
        #expect(expiry("ru", 7200).contains("через 2 часа."))
        #expect(expiry("ru", 18_000).contains("через 5 часов."))
        #expect(expiry("ru", 60).contains("через 1 минуту."))
        #expect(expiry("it", 3600).contains("scade tra 1 ora."))
        #expect(expiry("it", 7200).contains("scade tra 2 ore."))
        for language in Languages.supported {
            let text = expiry(language, 432_000)
            #expect(text.contains("5") && !text.contains("{count") && !text.contains("#"), "\(language)")
        }
        // Languages with a dual say "two days" in one word (Arabic يومين), without the number.
        #expect(expiry("ar", 259_200).contains("3 أيام") && expiry("pl", 18_000).contains("5 godzin"))
    }

    @Test("a deployer's plural message that cannot be read stops the start, naming the file and key")
    func malformedPluralOverride() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mail-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("locales"), withIntermediateDirectories: true)
        try #"{"expires_in_hours": "in {count, plural, one {# hour}}"}"#.write(
            to: directory.appendingPathComponent("locales/en.json"), atomically: true, encoding: .utf8)
        #expect {
            try Self.composer(overrides: directory.path)
        } throws: { error in
            "\(error)".contains("locales/en.json: expires_in_hours")
        }
    }

    @Test("a right-to-left mail: dir on the document, Content-Language, addresses isolated so they never read backwards")
    func rightToLeft() throws {
        let composer = try Self.composer()
        for language in ["ar", "fa", "he"] {
            let mail = composer.compose(
                .init(
                    kind: .resetPassword, language: language, recipient: MailAddress("a.b@example.com")!, email: "a.b@example.com",
                    newEmail: nil, link: "https://l.example.com/x", validForSeconds: 3600), now: 0)
            #expect(mail.html.contains("<html lang=\"\(language)\" dir=\"rtl\">") && mail.html.contains("<body dir=\"rtl\""))
            #expect(mail.rendered().contains("\r\nContent-Language: \(language)\r\n"))
            #expect(mail.text.contains("\u{2068}a.b@example.com\u{2069}") && mail.text.contains("\u{2068}Example <App>\u{2069}"))
        }
        let german = composer.compose(
            .init(kind: .resetPassword, language: "de-AT", recipient: MailAddress("a@example.com")!, email: "a@example.com", newEmail: nil, link: "x"),
            now: 0)
        #expect(german.html.contains("<html lang=\"de\" dir=\"ltr\">") && german.rendered().contains("Content-Language: de\r\n"))
        #expect(!german.text.contains("\u{2068}"))
    }
}
