import Crypto
import Foundation
import HTTPTypes
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("The app half of Dynamic Links: reopenAttribution and installAttribution")
struct AppAttributionTests {
    static func shortLink(_ client: BackendClient, _ longLink: String) async throws -> String {
        try #require(try await ShortLinksTests.create(client, ["longDynamicLink": longLink]).string("shortLink"))
    }

    static func stats(_ client: BackendClient, _ shortLink: String) async throws -> [[String: Any]] {
        let answer = try await client.get("/v1/\(ActionLinkEncoder.percentEncode(shortLink))/linkStats?durationDays=7&key=\(ShortLinksTests.key)")
        return answer.json["linkEventStats"] as? [[String: Any]] ?? []
    }

    @Test("reopenAttribution resolves a short link (deep link, long link, minimum version, UTM) and counts APP_RE_OPEN on the app's platform")
    func reopen() async throws {
        try await ShortLinksTests.harness().run { client in
            let short = try await Self.shortLink(
                client, "https://links.example.com/?link=https%3A%2F%2Fexample.com%2Fitem%2F7&imv=2.5&ibi=com.example.app&utm_source=news&utm_campaign=spring")
            let answer = try await client.post("/v1/reopenAttribution?key=any", ["bundleId": "com.example.app", "requestedLink": short, "sdkVersion": "1.0.0"])
            #expect(answer.status == .ok)
            #expect(answer.string("deepLink") == "https://example.com/item/7" && answer.string("iosMinAppVersion") == "2.5")
            #expect(answer.string("utmSource") == "news" && answer.string("utmCampaign") == "spring" && answer.json["utmMedium"] == nil)
            #expect(answer.string("resolvedLink")?.hasPrefix("https://links.example.com/?link=https%3A%2F%2Fexample.com%2Fitem%2F7") == true)
            _ = try await client.post("/v1/reopenAttribution?key=any", ["bundleId": "com.example.app", "requestedLink": short])
            let rows = try await Self.stats(client, short)
            #expect(rows.contains { $0["platform"] as? String == "IOS" && $0["event"] as? String == "APP_RE_OPEN" && $0["count"] as? String == "2" }, "\(rows)")
            // A long link resolves from itself, keeping its UTM values; it has no statistics to count in.
            let long = "https://links.example.com/?link=https%3A%2F%2Fexample.com%2Fl&utm_term=t&utm_content=c&imv=9"
            let fromLong = try await client.post("/v1/reopenAttribution?key=any", ["bundleId": "com.example.app", "requestedLink": long])
            #expect(fromLong.string("deepLink") == "https://example.com/l" && fromLong.string("resolvedLink") == long)
            #expect(fromLong.string("utmTerm") == "t" && fromLong.string("utmContent") == "c" && fromLong.string("iosMinAppVersion") == "9")
            // An Android app sends its package name; an email action link resolves to itself, counting nothing.
            let action = "https://links.example.com/__/auth/links?link=https%3A%2F%2Flinks.example.com%2F__%2Fauth%2Faction%3Fmode%3DsignIn"
            let email = try await client.post("/v1/reopenAttribution?key=any", ["bundleId": "com.example.app", "requestedLink": action])
            #expect(email.string("deepLink") == action && email.string("resolvedLink") == action)
        }
    }

    @Test("unknown links and apps, other hosts, no key: Google's error shape, nothing counted")
    func reopenRefusals() async throws {
        try await ShortLinksTests.harness().run { client in
            let short = try await Self.shortLink(client, "https://links.example.com/?link=https%3A%2F%2Fexample.com%2Fa")
            let cases: [(String, [String: Any], HTTPResponse.Status, String)] = [
                ("?key=any", ["bundleId": "com.other.app", "requestedLink": short], .badRequest, "INVALID_ARGUMENT"),
                ("?key=any", ["bundleId": "com.example.app", "requestedLink": "https://links.example.com/Nope1"], .notFound, "NOT_FOUND"),
                ("?key=any", ["bundleId": "com.example.app", "requestedLink": "https://evil.example.net/x"], .badRequest, "INVALID_ARGUMENT"),
                ("?key=any", ["bundleId": "com.example.app"], .badRequest, "INVALID_ARGUMENT"),
                ("", ["bundleId": "com.example.app", "requestedLink": short], .forbidden, "PERMISSION_DENIED"),
            ]
            for (key, body, status, code) in cases {
                let answer = try await client.post("/v1/reopenAttribution" + key, body)
                #expect(answer.status == status && (answer.json["error"] as? [String: Any])?["status"] as? String == code, "\(body) \(answer.json)")
            }
            #expect(try await Self.stats(client, short).isEmpty)
        }
    }

    @Test("installAttribution: a hand-off token is claimed once (UNIQUE, APP_INSTALL and APP_FIRST_OPEN); no token, no guess")
    func install() async throws {
        let secret = "a form secret of at least thirty-two characters"
        let harness = ShortLinksTests.harness { $0.formSecret = secret }
        try await harness.run { client in
            let short = try await Self.shortLink(client, "https://links.example.com/?link=https%3A%2F%2Fexample.com%2Fwelcome&apn=com.example.app")
            let sealer = HandoffSealer(secret: Array(SHA256.hash(data: Data(secret.utf8))))
            let token = try #require(
                sealer.seal(link: short, app: HandoffApp(store: .android, id: "com.example.app"), now: harness.clock.nowSeconds, lifetime: 3600))
            for candidate in ["ldh." + token, "https://links.example.com/__/handoff/" + token] {
                let body: [String: Any] = ["bundleId": "com.example.app", "uniqueMatchLinkToCheck": candidate, "device": ["deviceModelName": "x"]]
                let first = try await client.post("/v1/installAttribution?key=any", body)
                if candidate.hasPrefix("ldh.") {
                    #expect(first.string("attributionConfidence") == "UNIQUE" && first.string("deepLink") == "https://example.com/welcome")
                    #expect(first.string("requestedLink") == short)
                } else {
                    // The same token by another route: spent already.
                    #expect(first.json["deepLink"] == nil && first.string("matchMessage")?.contains("already claimed") == true)
                }
            }
            let rows = try await Self.stats(client, short)
            #expect(rows.contains { $0["event"] as? String == "APP_INSTALL" && $0["count"] as? String == "1" }, "\(rows)")
            #expect(rows.contains { $0["event"] as? String == "APP_FIRST_OPEN" && $0["count"] as? String == "1" })

            let none = try await client.post("/v1/installAttribution?key=any", ["bundleId": "com.example.app", "device": ["screenResolutionWidth": 390]])
            #expect(none.status == .ok && none.json["deepLink"] == nil && none.string("attributionConfidence") == "UNKNOWN_ATTRIBUTION_CONFIDENCE")
            #expect(none.string("matchMessage")?.contains("never guesses") == true)
            let expired = try #require(
                sealer.seal(link: short, app: HandoffApp(store: .android, id: "com.example.app"), now: harness.clock.nowSeconds - 7200, lifetime: 3600))
            #expect(
                try await client.post("/v1/installAttribution?key=any", ["bundleId": "com.example.app", "uniqueMatchLinkToCheck": "ldh." + expired])
                    .string("matchMessage")?.contains("expired") == true)
            let forged = try #require(
                HandoffSealer(secret: Array(repeating: 1, count: 32)).seal(
                    link: short, app: HandoffApp(store: .android, id: "com.example.app"), now: harness.clock.nowSeconds, lifetime: 60))
            #expect(
                try await client.post("/v1/installAttribution?key=any", ["bundleId": "com.example.app", "uniqueMatchLinkToCheck": "ldh." + forged])
                    .string("matchMessage")?.contains("not one this service made") == true)
            // A link of this domain the app found itself resolves as it stands.
            let found = try await client.post("/v1/installAttribution?key=any", ["bundleId": "com.example.app", "uniqueMatchLinkToCheck": short])
            #expect(found.string("attributionConfidence") == "UNIQUE" && found.string("deepLink") == "https://example.com/welcome")
        }
    }
}
