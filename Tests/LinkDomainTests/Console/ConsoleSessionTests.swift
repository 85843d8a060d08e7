import Foundation
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Console sessions, form tokens and password hashes")
struct ConsoleSessionTests {
    static let seal = ConsoleSessionSeal(signer: FormToken(secret: Array(repeating: 1, count: 32)), idleSeconds: 1800)
    static let session = ConsoleSession(actor: "ops", signedInAt: 1_000_000)

    @Test("a session lasts while it is used within the idle time, and 12 hours at most")
    func lifetime() async {
        let cookie = Self.seal.cookie(Self.session, credentialDigest: "d1", now: 1_000_000)
        let digest: (String) async -> String? = { $0 == "ops" ? "d1" : nil }
        #expect(await Self.seal.session(cookie: cookie, now: 1_000_000 + 1799, credentialDigest: digest) == Self.session)
        #expect(await Self.seal.session(cookie: cookie, now: 1_000_000 + 1801, credentialDigest: digest) == nil)
        // Renewed at 11h59m, it still ends at 12 hours after sign-in.
        let late = Self.seal.cookie(Self.session, credentialDigest: "d1", now: 1_000_000 + 43_000)
        #expect(await Self.seal.session(cookie: late, now: 1_000_000 + 43_100, credentialDigest: digest) == Self.session)
        #expect(await Self.seal.session(cookie: late, now: 1_000_000 + 43_300, credentialDigest: digest) == nil)
    }

    @Test("a changed password or a removed user ends the session; a changed cookie is nobody's")
    func credentials() async {
        let cookie = Self.seal.cookie(Self.session, credentialDigest: "d1", now: 1_000_000)
        #expect(await Self.seal.session(cookie: cookie, now: 1_000_010, credentialDigest: { _ in "d2" }) == nil)
        #expect(await Self.seal.session(cookie: cookie, now: 1_000_010, credentialDigest: { _ in nil }) == nil)
        let other = Base64URL.encode(Array("root".utf8)) + cookie.drop { $0 != "." }
        #expect(await Self.seal.session(cookie: other, now: 1_000_010, credentialDigest: { _ in "d1" }) == nil)
        for broken in ["", ".", "a.b.c", "b3Bz.99999999999999999999.1.AAAA", String(repeating: "x", count: 5000)] {
            #expect(await Self.seal.session(cookie: broken, now: 1_000_010, credentialDigest: { _ in "d1" }) == nil)
        }
    }

    @Test("a form token is for one session and one action")
    func formTokens() {
        let token = Self.seal.formToken(Self.session, action: "/__/console/links/abcd/delete", now: 1_000_100)
        #expect(Self.seal.isValidFormToken(token, session: Self.session, action: "/__/console/links/abcd/delete", now: 1_000_200))
        #expect(!Self.seal.isValidFormToken(token, session: Self.session, action: "/__/console/links/abce/delete", now: 1_000_200))
        #expect(
            !Self.seal.isValidFormToken(
                token, session: ConsoleSession(actor: "ops", signedInAt: 1_000_001), action: "/__/console/links/abcd/delete",
                now: 1_000_200))
    }

    @Test("scrypt hashes: what the command makes verifies its password only; malformed or costly ones are not hashes")
    func hashes() throws {
        let text = try ConsolePasswords.hash("correct horse battery staple")
        let hash = try #require(ScryptPasswordHash(text))
        #expect(text.hasPrefix("scrypt$15$8$1$") && hash.text == text)
        #expect(hash.matches("correct horse battery staple") && !hash.matches("correct horse battery stapler"))
        #expect(throws: ConsolePasswords.Problem.self) { try ConsolePasswords.hash("short") }
        for bad in [
            "", "scrypt$15$8$1$AAAA$AAAA", "scrypt$30$8$1$" + String(text.split(separator: "$")[4]) + "$" + String(text.split(separator: "$")[5]),
            "bcrypt$15$8$1$a$b", text + "$",
        ] {
            #expect(ScryptPasswordHash(bad) == nil, "\(bad)")
        }
    }

    @Test("addresses are masked to their first letter and domain")
    func masking() {
        #expect(MailQueueOperations.masked("ann@example.com") == "a•••@example.com")
        #expect(MailQueueOperations.masked("nonsense") == "•••")
        #expect(ConsoleController<LinkDomainRequestContext>.csvField("=SUM(A1)") == "'=SUM(A1)")
        #expect(ConsoleController<LinkDomainRequestContext>.csvField("a,b") == "\"a,b\"")
    }
}
