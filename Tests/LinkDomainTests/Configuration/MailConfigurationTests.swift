@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage
import NIOCore
import Testing

@Suite("Mail configuration: the relay, the sender, DKIM and branding, checked at start")
struct MailConfigurationTests {
    @Test("a relay URL, sender and branding are read; the password never shows in a problem or the summary")
    func read() throws {
        let configuration = try Fixtures.load(
            #"""
            {"mail": {"smtpURL": "smtp://user:s3cret@relay.example.com:2525", "from": "noreply@example.com", "retryForSeconds": 600},
             "branding": {"appName": "Example", "accentColor": "#AA3300", "supportEmail": "help@example.com"}}
            """#)
        #expect(configuration.mail.relay?.host == "relay.example.com" && configuration.mail.relay?.password == "s3cret")
        #expect(configuration.mailSender == MailSender(name: "Example", address: MailAddress("noreply@example.com")!))
        #expect(configuration.branding.accentColor == "#aa3300" && configuration.mail.retryForSeconds == 600)
        let summary = StartupSummary.text(configuration: configuration, listeningPort: 8080)
        #expect(summary.contains("mail:              from noreply@example.com through smtp://user:***@relay.example.com:2525"))
        #expect(!summary.contains("s3cret"))
        #expect(ConfigurationWarnings.of(configuration).isEmpty)
        #expect(configuration.defaultLanguage == "en")
    }

    @Test("the default language is read through Firebase's fallbacks, as a tag the pages speak")
    func defaultLanguage() throws {
        #expect(try Fixtures.load(#"{"pages": {"defaultLanguage": "de"}}"#).defaultLanguage == "de")
        #expect(try Fixtures.load(#"{"pages": {"defaultLanguage": "pt_BR"}}"#).defaultLanguage == "pt")
        #expect(try Fixtures.load(#"{"pages": {"defaultLanguage": "es-MX"}}"#).defaultLanguage == "es-419")
        #expect(LinkRouter(configuration: try Fixtures.load(#"{"pages": {"defaultLanguage": "fr"}}"#)).defaultLanguage == "fr")
    }

    @Test(
        "what is wrong is named, the relay's password never",
        arguments: [
            (#"{"mail": {"smtpURL": "http://user:s3cret@relay"}}"#, "mail.smtpURL"),
            (#"{"mail": {"from": "not an address"}}"#, "mail.from"),
            (#"{"mail": {"dkim": {"privateKeyPath": "/nonexistent/dkim.pem"}}}"#, "mail.dkim.privateKeyPath"),
            (#"{"mail": {"dkim": {"selector": "not a label!"}}}"#, "mail.dkim.selector"),
            (#"{"branding": {"accentColor": "red"}}"#, "branding.accentColor"),
            (#"{"branding": {"logoURL": "http://example.com/logo.png"}}"#, "branding.logoURL"),
            (#"{"mail": {"perRecipientPerHour": 0}}"#, "mail.perRecipientPerHour"),
            (#"{"pages": {"defaultLanguage": "klingon"}}"#, "pages.defaultLanguage"),
        ])
    func refused(json: String, key: String) {
        #expect { try Fixtures.load(json) } throws: { error in
            let description = (error as? ConfigurationError)?.description ?? ""
            return description.contains(key) && !description.contains("s3cret")
        }
    }

    @Test("a brand colour reaches the pages' buttons in both schemes (tinted for the dark one); the default leaves the stylesheet as written")
    func accentColor() async throws {
        let branded = try await Fixtures.services(##"{"branding": {"accentColor": "#AA3300"}}"##)
        let stylesheet = String(decoding: branded.immediate.stylesheet.body.map { Array($0.readableBytesView) } ?? [], as: UTF8.self)
        let colors = try #require(AccentColors("#aa3300"))
        #expect(stylesheet.contains("@media (prefers-color-scheme: light) { :root { --accent: #aa3300; --accent-fg: #ffffff; } }\n"))
        #expect(stylesheet.hasSuffix("@media (prefers-color-scheme: dark) { :root { --accent: \(colors.dark); --accent-fg: #121216; } }\n"))
        let plain = try await Fixtures.services(#"{}"#)
        #expect(plain.immediate.stylesheet.body.map { Array($0.readableBytesView) } == Array(PageAssets.builtInFiles["static/styles.css"]!.utf8))
    }

    @Test("a DKIM domain DMARC would not count, and a relay without mail.from, are warned about")
    func warnings() throws {
        var configuration = try Fixtures.load(#"{"mail": {"smtpURL": "smtp://relay.example.com"}}"#)
        #expect(ConfigurationWarnings.of(configuration).contains { $0.hasPrefix("mail.from is not set") })
        configuration.mail.from = MailAddress("noreply@mail.example.com")
        configuration.mail.dkim = .init(privateKeyPath: "/k.pem", selector: "s", domain: "example.com")
        #expect(ConfigurationWarnings.of(configuration).isEmpty)
        configuration.mail.dkim?.domain = "other.example"
        #expect(ConfigurationWarnings.of(configuration).contains { $0.hasPrefix("mail.dkim.domain \"other.example\"") })
    }
}
