import Foundation
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Hand-off tokens and what an app's link resolves to")
struct HandoffTokenTests {
    let sealer = HandoffSealer(secret: Array(repeating: 7, count: 32))
    static let app = HandoffApp(store: .android, id: "com.example.app")

    @Test("a token opens to its link and expiry, with a fresh ID each time; the link is not readable in it")
    func roundTrip() throws {
        let link = "https://links.example.com/__/auth/action?mode=signIn&oobCode=SECRETCODE&apiKey=k"
        let token = try #require(sealer.seal(link: link, app: Self.app, now: 1_000, lifetime: 3600))
        let opened = try #require(sealer.open(token))
        #expect(opened.link == link && opened.expiresAt == 4_600 && opened.id.count == 16 && opened.app == Self.app)
        #expect(!token.contains("SECRETCODE") && !(Base64URL.decode(token).map { String(decoding: $0, as: UTF8.self) } ?? "").contains("SECRETCODE"))
        #expect(try #require(sealer.seal(link: link, app: Self.app, now: 1_000, lifetime: 3600)) != token)
        let again = try #require(sealer.seal(link: link, app: Self.app, now: 1_000, lifetime: 3600))
        #expect(try #require(sealer.open(again)).id != opened.id)
    }

    @Test("changed, truncated, foreign or nonsense tokens do not open; an overflowing lifetime or a huge link makes none")
    func refusals() throws {
        let token = try #require(sealer.seal(link: "https://links.example.com/abc", app: Self.app, now: 0, lifetime: 60))
        var bytes = try #require(Base64URL.decode(token))
        for index in [0, bytes.count / 2, bytes.count - 1] {
            var changed = bytes
            changed[index] ^= 1
            #expect(sealer.open(Base64URL.encode(Array(changed))) == nil)
        }
        bytes.removeLast()
        #expect(sealer.open(Base64URL.encode(Array(bytes))) == nil)
        #expect(HandoffSealer(secret: Array(repeating: 8, count: 32)).open(token) == nil)
        for nonsense in ["", "a", "!!!", String(repeating: "A", count: 100_000)] { #expect(sealer.open(nonsense) == nil) }
        #expect(sealer.seal(link: "https://x", app: Self.app, now: .max - 10, lifetime: 60) == nil)
        #expect(sealer.seal(link: "https://links.example.com/?link=" + String(repeating: "a", count: 5000), app: Self.app, now: 0, lifetime: 60) == nil)
    }

    @Test("a token is found in a hand-off URL of this domain or a Play referrer, nowhere else")
    func tokenPlaces() {
        let hosts: Set<String> = ["links.example.com"]
        #expect(HandoffPaths.token(in: "https://links.example.com/__/handoff/abc_-1", hosts: hosts) == "abc_-1")
        #expect(HandoffPaths.token(in: "https://links.example.com/__/handoff/abc?x=1#y", hosts: hosts) == "abc")
        #expect(HandoffPaths.token(in: "ldh.abc", hosts: hosts) == "abc")
        #expect(HandoffPaths.token(in: "https://evil.example.net/__/handoff/abc", hosts: hosts) == nil)
        #expect(HandoffPaths.token(in: "https://links.example.com/__/handoff/", hosts: hosts) == nil)
        #expect(HandoffPaths.token(in: "https://links.example.com/abc", hosts: hosts) == nil)
    }

    @Test("short, long and email action links resolve as the Dynamic Links SDK did; other hosts and pages do not")
    func resolver() throws {
        var configuration = LinkDomainConfiguration(publicBaseURL: "https://links.example.com")
        configuration.pivotBaseURL = "https://open.example.com"
        configuration.authorizedDomains = ["example.com"]
        let resolver = AppLinkResolver(configuration: configuration)
        #expect(resolver.shape(of: "https://links.example.com/abcd") == .shortLink(suffix: "abcd"))
        #expect(resolver.shape(of: "https://open.example.com/abcd?utm_source=x") == .shortLink(suffix: "abcd"))
        #expect(resolver.shape(of: "https://links.example.com/__/auth/links?link=x") == .emailAction)
        #expect(
            resolver.shape(of: "https://links.example.com/?link=https%3A%2F%2Fexample.com%2Fp&imv=2.1&utm_campaign=spring")
                == .longLink(query: "link=https%3A%2F%2Fexample.com%2Fp&imv=2.1&utm_campaign=spring"))
        for refused in [
            "https://evil.example.net/abcd", "https://links.example.com/healthz", "https://links.example.com/", "ftp://links.example.com/abcd",
            "http://links.example.com/abcd", "not a link", "",
        ] {
            #expect(resolver.shape(of: refused) == nil, "\(refused)")
        }
        let short = try #require(
            resolver.resolve(
                "https://links.example.com/abcd", shape: .shortLink(suffix: "abcd"),
                storedQuery: "link=https%3A%2F%2Fexample.com%2Fp%2F1&imv=3.0&utm_source=mail&utm_medium=email"))
        #expect(short.deepLink == "https://example.com/p/1" && short.minimumAppVersion == "3.0" && short.suffix == "abcd")
        #expect(short.resolvedLink == "https://links.example.com/?link=https%3A%2F%2Fexample.com%2Fp%2F1&imv=3.0&utm_source=mail&utm_medium=email")
        #expect(short.utm.source == "mail" && short.utm.medium == "email" && short.utm.campaign == nil)
        let action = "https://links.example.com/__/auth/action?mode=signIn&oobCode=C&apiKey=k"
        #expect(resolver.resolve(action, shape: .emailAction)?.deepLink == action)
        #expect(resolver.resolve("https://links.example.com/abcd", shape: .shortLink(suffix: "abcd"), storedQuery: nil) == nil)
        #expect(resolver.resolve("https://links.example.com/?link=", shape: .longLink(query: "link=")) == nil)
        // A deep link the pages would not follow is not handed to the app either, stored or given.
        for refused in [
            "https://evil.example/login", "javascript:alert(1)", "intent://x#Intent;package=com.evil;end", "file:///etc/passwd",
            "myapp://open", "http://example.com/plain", "https://user@example.com/",
        ] {
            let query = "link=" + ActionLinkEncoder.percentEncode(refused)
            #expect(resolver.resolve("https://links.example.com/?" + query, shape: .longLink(query: query)) == nil, "\(refused)")
            #expect(resolver.resolve("https://links.example.com/abcd", shape: .shortLink(suffix: "abcd"), storedQuery: query) == nil, "\(refused)")
        }
        // Which apps a link names, for counting their events.
        let named = try #require(
            resolver.resolve(
                "https://links.example.com/?link=https%3A%2F%2Fexample.com%2F&ibi=com.example.ios&apn=com.example.android",
                shape: .longLink(query: "link=https%3A%2F%2Fexample.com%2F&ibi=com.example.ios&apn=com.example.android")))
        #expect(named.apps.names("com.example.ios", on: .iOS) && named.apps.names("com.example.android", on: .android))
        #expect(!named.apps.names("com.example.android", on: .iOS) && !named.apps.names("com.example.other", on: .android))
    }

    @Test("a token names the app it was made for; it opens to that app only")
    func tokensNameTheirApp() throws {
        let apple = HandoffApp(store: .apple, id: "com.example.ios")
        let token = try #require(sealer.seal(link: "https://links.example.com/abc", app: apple, now: 0, lifetime: 60))
        #expect(sealer.open(token)?.app == apple)
        #expect(sealer.seal(link: "https://links.example.com/abc", app: HandoffApp(store: .apple, id: "a\nb"), now: 0, lifetime: 60) == nil)
        #expect(sealer.seal(link: "https://links.example.com/abc", app: HandoffApp(store: .apple, id: ""), now: 0, lifetime: 60) == nil)
    }
}
