import Crypto
import Foundation
import HummingbirdTesting
@testable import LinkDomain
import LinkDomainClient
@testable import LinkDomainCore
@testable import LinkDomainStorage
import Testing

@Suite("LinkDomainClient against the running server")
struct LinkDomainClientTests {
    @Test("resolve a short link, claim a pasteboard hand-off and a Play referrer once each, typed refusals")
    func againstTheServer() async throws {
        let secret = "a form secret of at least thirty-two characters"
        let harness = ShortLinksTests.harness { $0.formSecret = secret }
        try await harness.run { backend in
            let short = try await AppAttributionTests.shortLink(
                backend, "https://links.example.com/?link=https%3A%2F%2Fexample.com%2Fshelf%2F3&imv=4.0&utm_medium=social")
            let port = try #require(backend.client.port)
            let client = LinkDomainClient(domain: try #require(URL(string: "http://127.0.0.1:\(port)")), apiKey: "app-key", bundleID: "com.example.app")
            let resolved = try await client.resolve(try #require(URL(string: short)))
            #expect(resolved.deepLink == "https://example.com/shelf/3" && resolved.minimumAppVersion == "4.0" && resolved.utm == ["utm_medium": "social"])

            let sealer = HandoffSealer(secret: Array(SHA256.hash(data: Data(secret.utf8))))
            let pasteToken = try #require(
                sealer.seal(link: short, app: HandoffApp(store: .android, id: "com.example.app"), now: harness.clock.nowSeconds, lifetime: 3600))
            let pasteboard = "https://links.example.com/__/handoff/" + pasteToken
            #expect(try await client.claimInstall(pasteboardLink: pasteboard)?.deepLink == "https://example.com/shelf/3")
            #expect(try await client.claimInstall(pasteboardLink: pasteboard) == nil)  // once
            let referToken = try #require(
                sealer.seal(link: short, app: HandoffApp(store: .android, id: "com.example.app"), now: harness.clock.nowSeconds, lifetime: 3600))
            let referrer = "ldh." + referToken
            #expect(try await client.claimInstall(referrer: referrer)?.deepLink == "https://example.com/shelf/3")
            #expect(try await client.claimInstall(referrer: "utm_source=google-play") == nil)

            await #expect(throws: LinkDomainClientError.refused(status: 404, message: "no such short link")) {
                try await client.resolve(try #require(URL(string: "https://links.example.com/Missing1")))
            }
            let stranger = LinkDomainClient(domain: client.domain, apiKey: "app-key", bundleID: "com.unknown.app")
            await #expect(throws: LinkDomainClientError.self) { try await stranger.resolve(try #require(URL(string: short))) }
        }
        let offline = LinkDomainClient(domain: try #require(URL(string: "http://127.0.0.1:9")), apiKey: "k", bundleID: "com.example.app")
        await #expect {
            try await offline.resolve(try #require(URL(string: "https://links.example.com/abcd")))
        } throws: { error in
            if case LinkDomainClientError.unreachable = error { return true }
            return false
        }
    }

    @Test("only the link domain's own hand-off URLs are taken from the pasteboard")
    func handoffOnly() throws {
        let client = LinkDomainClient(domain: try #require(URL(string: "https://links.example.com")), apiKey: "k", bundleID: "b")
        #expect(client.isHandoff("https://links.example.com/__/handoff/abc"))
        #expect(
            !client.isHandoff("https://links.example.com/abcd") && !client.isHandoff("my password 123")
                && !client.isHandoff("https://links.example.com.evil.net/__/handoff/abc"))
    }
}
