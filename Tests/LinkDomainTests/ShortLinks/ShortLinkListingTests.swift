import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

/// `GET /v1/shortLinks` and one link's `GET`, `DELETE`, `:disable` and `:enable`: the console's
/// operations for scripts, with the link API's keys and Google's error shape.
@Suite("The short-link listing API")
struct ShortLinkListingTests {
    static func make(_ client: BackendClient, _ count: Int) async throws -> [String] {
        var suffixes: [String] = []
        for index in 0..<count {
            let answer = try await ShortLinksTests.create(
                client, ["longDynamicLink": "https://links.example.com/?link=https%3A%2F%2Fexample.com%2Fp%2F\(index)"])
            suffixes.append(String(try #require(answer.string("shortLink")).dropFirst("https://links.example.com/".count)))
        }
        return suffixes
    }

    func call(_ client: BackendClient, _ method: HTTPRequest.Method, _ path: String) async throws -> Answer {
        try await client.client.execute(uri: path, method: method) { BackendClient.answer($0) }
    }

    @Test("pages of links, newest first, with a token for the next; a search; a key is required")
    func listing() async throws {
        try await ShortLinksTests.harness().run { client in
            let suffixes = try await Self.make(client, 5)
            let key = ShortLinksTests.key
            let first = try await client.get("/v1/shortLinks?key=\(key)&pageSize=3")
            let links = try #require(first["shortLinks"] as? [[String: Any]])
            #expect(links.count == 3)
            let link = try #require(links.first)
            let suffix = try #require((link["name"] as? String)?.dropFirst("shortLinks/".count))
            let index = try #require(suffixes.firstIndex(of: String(suffix)))
            #expect(link["shortLink"] as? String == "https://links.example.com/\(suffix)")
            #expect(link["longDynamicLink"] as? String == "https://links.example.com/?link=https%3A%2F%2Fexample.com%2Fp%2F\(index)")
            #expect(link["disabled"] as? Bool == false && link["clickCount"] as? String == "0" && (link["createTime"] as? String)?.hasSuffix("Z") == true)
            let token = try #require(first.string("nextPageToken"))
            let second = try await client.get("/v1/shortLinks?key=\(key)&pageSize=3&pageToken=\(token)")
            let rest = try #require(second["shortLinks"] as? [[String: Any]])
            #expect(rest.count == 2 && second["nextPageToken"] == nil)
            // Newest first (ties by suffix): the two pages hold every link once.
            let names = (links + rest).compactMap { $0["name"] as? String }
            #expect(Set(names) == Set(suffixes.map { "shortLinks/\($0)" }) && names.count == 5)
            let found = try await client.get("/v1/shortLinks?key=\(key)&query=p%252F2")
            #expect((found["shortLinks"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["shortLinks/\(suffixes[2])"])
            #expect(try await client.get("/v1/shortLinks").status == .forbidden)
            #expect(try await client.get("/v1/shortLinks?key=\(key)&pageSize=1000").errorMessage == "pageSize must be 1 to 100")
            #expect(try await client.get("/v1/shortLinks?key=\(key)&pageToken=bogus!").status == .badRequest)
        }
    }

    @Test("disable, enable and delete one link: the link answers accordingly at once")
    func changes() async throws {
        try await ShortLinksTests.harness().run { client in
            let suffix = try #require(try await Self.make(client, 1).first)
            let key = ShortLinksTests.key
            let desktop = UserAgents.desktop
            #expect(try await client.page("/\(suffix)", agent: desktop).status == .found)
            let disabled = try await call(client, .post, "/v1/shortLinks/\(suffix):disable?key=\(key)")
            #expect(disabled.status == .ok && disabled["disabled"] as? Bool == true)
            #expect(try await client.page("/\(suffix)", agent: desktop).status == .notFound)
            #expect(try await call(client, .post, "/v1/shortLinks/\(suffix):enable?key=\(key)")["disabled"] as? Bool == false)
            #expect(try await client.page("/\(suffix)", agent: desktop).status == .found)
            #expect(try await call(client, .post, "/v1/shortLinks/\(suffix):explode?key=\(key)").status == .notFound)
            #expect(try await call(client, .delete, "/v1/shortLinks/\(suffix)?key=\(key)").status == .ok)
            #expect(try await client.page("/\(suffix)", agent: desktop).status == .notFound)
            let again = try await call(client, .delete, "/v1/shortLinks/\(suffix)?key=\(key)")
            #expect(again.status == .notFound && (again["error"] as? [String: Any])?["status"] as? String == "NOT_FOUND")
            #expect(try await call(client, .delete, "/v1/shortLinks/\(suffix)").status == .forbidden)
        }
    }

    @Test("CUSTOM suffixes: chosen, checked (characters, length, reserved paths) and never taken twice; OPTION_UNSPECIFIED is UNGUESSABLE")
    func customSuffixes() async throws {
        try await ShortLinksTests.harness().run { client in
            let long = "https://links.example.com/?link=https%3A%2F%2Fexample.com%2Fspring"
            let made = try await ShortLinksTests.create(client, ["longDynamicLink": long, "suffix": ["option": "CUSTOM", "customSuffix": "Spring-sale_1"]])
            #expect(made.status == .ok && made.string("shortLink") == "https://links.example.com/Spring-sale_1")
            #expect(try await client.page("/Spring-sale_1").status == .found)
            // Suffixes are case-sensitive links: another case is another (unknown) link.
            #expect(try await client.page("/spring-sale_1").status == .notFound)
            let taken = try await ShortLinksTests.create(client, ["longDynamicLink": long, "suffix": ["option": "CUSTOM", "customSuffix": "Spring-sale_1"]])
            #expect(taken.status == .conflict && (taken["error"] as? [String: Any])?["status"] as? String == "ALREADY_EXISTS")
            for (bad, words) in [
                ("healthz", "keeps for itself"), ("apple-app-site-association", "keeps for itself"), ("__console", "keeps for itself"),
                ("no/slash", "only the letters"), ("", "1 to 64"), (String(repeating: "a", count: 65), "1 to 64"), ("ü", "only the letters"),
            ] {
                let refused = try await ShortLinksTests.create(client, ["longDynamicLink": long, "suffix": ["option": "CUSTOM", "customSuffix": bad]])
                #expect(refused.status == .badRequest && refused.errorMessage?.contains(words) == true, "\(bad): \(refused.errorMessage ?? "")")
            }
            let missing = try await ShortLinksTests.create(client, ["longDynamicLink": long, "suffix": ["option": "CUSTOM"]])
            #expect(missing.errorMessage == "suffix.customSuffix is required with suffix.option CUSTOM")
            let unspecified = try await ShortLinksTests.create(client, ["longDynamicLink": long, "suffix": ["option": "OPTION_UNSPECIFIED"]])
            #expect(unspecified.string("shortLink")?.count == "https://links.example.com/".count + 17)
            #expect(
                try await ShortLinksTests.create(client, ["longDynamicLink": long, "suffix": ["option": "LONG"]]).errorMessage
                    == "suffix.option must be SHORT, UNGUESSABLE or CUSTOM")
        }
    }

    @Test("PATCH changes where a link leads, checked as a new link is; clicks, suffix and state stay; audited 404 for an unknown one")
    func patch() async throws {
        try await ShortLinksTests.harness().run { client in
            let suffix = try #require(try await Self.make(client, 1).first)
            let key = ShortLinksTests.key
            #expect(try await client.page("/\(suffix)").headers[.location] == "https://example.com/p/0")
            let changed = try await client.post(
                "/v1/shortLinks/\(suffix)?key=\(key)", ["longDynamicLink": "https://links.example.com/?link=https%3A%2F%2Fexample.com%2Fautumn"],
                method: .patch)
            #expect(changed.status == .ok && changed["longDynamicLink"] as? String == "https://links.example.com/?link=https%3A%2F%2Fexample.com%2Fautumn")
            #expect(changed["name"] as? String == "shortLinks/\(suffix)")
            // This replica forgot the old target at once.
            #expect(try await client.page("/\(suffix)").headers[.location] == "https://example.com/autumn")
            let outside = try await client.post(
                "/v1/shortLinks/\(suffix)?key=\(key)", ["longDynamicLink": "https://links.example.com/?link=https%3A%2F%2Fshop.evil.example%2F"],
                method: .patch)
            #expect(outside.status == .badRequest && outside.errorMessage?.contains("authorizedDomains") == true)
            let renamed = try await client.post(
                "/v1/shortLinks/\(suffix)?key=\(key)",
                ["longDynamicLink": "https://links.example.com/?link=https%3A%2F%2Fexample.com%2Fx", "suffix": ["option": "SHORT"]], method: .patch)
            #expect(renamed.status == .badRequest)
            #expect(try await client.page("/\(suffix)").headers[.location] == "https://example.com/autumn")
            let unknown = try await client.post(
                "/v1/shortLinks/NoSuchLink?key=\(key)", ["longDynamicLink": "https://links.example.com/?link=https%3A%2F%2Fexample.com%2Fx"],
                method: .patch)
            #expect(unknown.status == .notFound)
            let unkeyed = try await client.post(
                "/v1/shortLinks/\(suffix)", ["longDynamicLink": "https://links.example.com/?link=https%3A%2F%2Fexample.com%2Fx"], method: .patch)
            #expect(unkeyed.status == .forbidden)
        }
    }

    @Test("search takes what is pasted: the short link, /suffix, a suffix in any case, a destination URL or part of it")
    func pastedSearches() async throws {
        try await ShortLinksTests.harness().run { client in
            let made = try await ShortLinksTests.create(
                client,
                [
                    "longDynamicLink": "https://links.example.com/?link=https%3A%2F%2Fexample.com%2Fproduct%2F42",
                    "suffix": ["option": "CUSTOM", "customSuffix": "Promo7"],
                ])
            #expect(made.status == .ok)
            _ = try await Self.make(client, 3)
            let key = ShortLinksTests.key
            func found(_ text: String) async throws -> [String] {
                let answer = try await client.get("/v1/shortLinks?key=\(key)&query=\(ActionLinkEncoder.percentEncode(text))")
                return (answer["shortLinks"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []
            }
            for text in [
                "https://links.example.com/Promo7", "https://LINKS.example.com/Promo7?d=1", "links.example.com/Promo7", "/Promo7", "promo7", "PROMO",
                "https://example.com/product/42", "example.com/product/4", " Promo7 ",
            ] {
                #expect(try await found(text) == ["shortLinks/Promo7"], "\(text)")
            }
            // A pasted link names one link exactly: another case of it is not that link.
            #expect(try await found("https://links.example.com/promo7").isEmpty)
            #expect(try await found("/nothing-like-it").isEmpty)
            #expect(try await found("example.com/p/").count == 3)
        }
    }
}
