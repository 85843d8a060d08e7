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
}
