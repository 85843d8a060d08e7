import Foundation
import HTTPTypes
import HummingbirdTesting
@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage
import NIOCore
import Testing

@Suite("Short links, legacy long links and link statistics")
struct ShortLinksTests {
    static let key = "test-short-link-key-1"

    static func harness(_ adjust: @escaping (inout LinkDomainConfiguration) -> Void = { _ in }) -> BackendHarness {
        BackendHarness { configuration in
            configuration.shortLinks.apiKeys = [key]
            configuration.authorizedDomains += ["example.com"]
            adjust(&configuration)
        }
    }

    static func create(_ client: BackendClient, _ body: [String: Any], key: String? = ShortLinksTests.key) async throws -> Answer {
        try await client.post("/v1/shortLinks" + (key.map { "?key=\($0)" } ?? ""), body)
    }

    @Test("create from a long link; UNGUESSABLE is the default: 17 base62 characters")
    func createLong() async throws {
        try await Self.harness().run { client in
            let answer = try await Self.create(
                client, ["longDynamicLink": "https://links.example.com/?link=https%3A%2F%2Fexample.com%2Fp%2F1&apn=com.example.app"])
            #expect(answer.status == .ok)
            let short = try #require(answer.string("shortLink"))
            let suffix = short.dropFirst("https://links.example.com/".count)
            #expect(suffix.count == 17 && suffix.allSatisfy { $0.isLetter || $0.isNumber })
            #expect(answer.string("previewLink") == short + "?d=1")
            #expect((answer["warning"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("create from dynamicLinkInfo with SHORT: 4 characters; unknown apps are warnings")
    func createInfo() async throws {
        try await Self.harness().run { client in
            let answer = try await Self.create(
                client,
                [
                    "dynamicLinkInfo": [
                        "domainUriPrefix": "https://links.example.com", "link": "https://example.com/p/2",
                        "androidInfo": [
                            "androidPackageName": "com.unknown.app", "androidFallbackLink": "https://example.com/a", "androidMinPackageVersionCode": "7",
                        ],
                        "iosInfo": ["iosBundleId": "com.example.app", "iosFallbackLink": "https://example.com/i", "iosAppStoreId": "55"],
                        "navigationInfo": ["enableForcedRedirect": true],
                        "socialMetaTagInfo": ["socialTitle": "Product 2", "socialDescription": "Nice", "socialImageLink": "https://example.com/2.png"],
                    ],
                    "suffix": ["option": "SHORT"],
                ])
            #expect(answer.status == .ok, "\(answer.json)")
            let short = try #require(answer.string("shortLink"))
            #expect(short.count == "https://links.example.com/".count + 4)
            let warnings = try #require(answer["warning"] as? [[String: Any]])
            #expect(warnings.map { $0["warningCode"] as? String } == ["NOT_IN_PROJECT_ANDROID_PACKAGE_NAME"])
            let path = String(short.dropFirst("https://links.example.com".count))
            let desktop = try await client.page(path)
            #expect(desktop.status == .found)
            #expect(desktop.headers[.location] == "https://example.com/p/2")
            let iPhone = try await client.page(path, agent: UserAgents.iPhone)
            #expect(iPhone.headers[.location] == "https://example.com/i")  // efr=1: straight to ifl
            let crawler = try await client.page(path, agent: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)")
            #expect(crawler.status == .ok)
            #expect(crawler.html.contains("<meta property=\"og:title\" content=\"Product 2\">"))
            #expect(crawler.html.contains("<meta property=\"og:image\" content=\"https://example.com/2.png\">"))
        }
    }

    @Test("link API errors: no key, wrong key, no keys configured, bad bodies")
    func errors() async throws {
        try await Self.harness().run { client in
            let body: [String: Any] = ["longDynamicLink": "https://links.example.com/?link=https%3A%2F%2Fexample.com%2F"]
            #expect(try await Self.create(client, body, key: nil).status == .forbidden)
            let wrong = try await Self.create(client, body, key: "nope")
            #expect(wrong.status == .forbidden)
            #expect((wrong["error"] as? [String: Any])?["status"] as? String == "PERMISSION_DENIED")
            let cases: [[String: Any]] = [
                [:],
                ["longDynamicLink": "https://other.example.com/?link=https%3A%2F%2Fexample.com%2F"],
                ["longDynamicLink": "https://links.example.com/?apn=com.example.app"],
                ["longDynamicLink": "https://links.example.com/?link=javascript%3Aalert(1)"],
                ["dynamicLinkInfo": ["domainUriPrefix": "https://other.example.com", "link": "https://example.com/"]],
                ["dynamicLinkInfo": ["domainUriPrefix": "https://links.example.com"]],
                ["longDynamicLink": "https://links.example.com/?link=https%3A%2F%2Fexample.com%2F", "suffix": ["option": "LONG"]],
            ]
            for body in cases {
                let answer = try await Self.create(client, body)
                #expect(answer.status == .badRequest, "\(body)")
                #expect((answer["error"] as? [String: Any])?["status"] as? String == "INVALID_ARGUMENT", "\(body)")
            }
        }
        try await BackendHarness().run { client in
            let closed = try await Self.create(client, ["longDynamicLink": "https://links.example.com/?link=https%3A%2F%2Fexample.com%2F"], key: "anything")
            #expect(closed.status == .forbidden)
        }
    }

    @Test("a deep link or fallback outside authorizedDomains is refused with a 400 naming the host and the key; store hosts pass")
    func onlyLinksThatWork() async throws {
        try await Self.harness().run { client in
            let refused: [(body: [String: Any], host: String, name: String)] = [
                (["longDynamicLink": "https://links.example.com/?link=https%3A%2F%2Fshop.acme.example%2Fspring"], "shop.acme.example", "link"),
                (
                    [
                        "dynamicLinkInfo": [
                            "domainUriPrefix": "https://links.example.com", "link": "https://example.com/p",
                            "iosInfo": ["iosFallbackLink": "https://elsewhere.example/i"],
                        ]
                    ], "elsewhere.example", "ifl"
                ),
                (["longDynamicLink": "https://links.example.com/?link=https%3A%2F%2Fexample.com%2F&ofl=https%3A%2F%2Fdesk.example%2F"], "desk.example", "ofl"),
                (
                    ["longDynamicLink": "https://links.example.com/?link=https%3A%2F%2Fexample.com%2F&afl=https%3A%2F%2Fdroid.example%2F"], "droid.example",
                    "afl"
                ),
            ]
            for (body, host, name) in refused {
                let answer = try await Self.create(client, body)
                #expect(answer.status == .badRequest, "\(body)")
                let message = try #require((answer["error"] as? [String: Any])?["message"] as? String)
                #expect(message.contains(host) && message.contains("authorizedDomains") && message.contains("(\(name))"), "\(message)")
            }
            let insecure = try await Self.create(client, ["longDynamicLink": "https://links.example.com/?link=http%3A%2F%2Fexample.com%2F"])
            #expect(insecure.status == .badRequest)
            // The app stores are always allowed as fallbacks.
            let store = try await Self.create(
                client, ["longDynamicLink": "https://links.example.com/?link=https%3A%2F%2Fexample.com%2F&afl=https%3A%2F%2Fplay.google.com%2Fstore"])
            #expect(store.status == .ok, "\(store.json)")
        }
    }

    @Test("the importer refuses a row whose fallback is outside authorizedDomains, naming the host")
    func importRefusesFallbacks() async throws {
        let store = try SQLiteStore(path: FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString).sqlite").path)
        let importer = ShortLinkImporter(store: store, publicBaseURL: "https://links.example.com", policy: RedirectPolicy(authorizedDomains: ["example.com"]))
        let report = try await importer.importCSV(
            """
            shortLink,longLink
            https://links.example.com/ok1,https://links.example.com/?link=https%3A%2F%2Fexample.com%2F1
            https://links.example.com/no1,https://links.example.com/?link=https%3A%2F%2Fexample.com%2F2&ofl=https%3A%2F%2Fdesk.example%2F

            """)
        #expect(report.imported == 1)
        #expect(report.invalid.map(\.line) == [3])
        #expect(report.invalid.first?.reason.contains("desk.example") == true)
    }

    @Test("a taken suffix is never overwritten; SHORT suffixes survive collisions")
    func collisions() async throws {
        let store = try SQLiteStore(path: FileManager.default.temporaryDirectory.appendingPathComponent("links-\(UUID().uuidString).sqlite").path)
        try await store.insertShortLink(ShortLinkRecord(suffix: "abcd", longLinkQuery: "link=a", createdAt: 1, origin: .api))
        await #expect(throws: StoreError.duplicate) {
            try await store.insertShortLink(ShortLinkRecord(suffix: "abcd", longLinkQuery: "link=b", createdAt: 2, origin: .api))
        }
        #expect(try await store.shortLink(suffix: "abcd")?.longLinkQuery == "link=a")
        // Many SHORT links in a row all get distinct suffixes.
        try await Self.harness().run { client in
            var links: Set<String> = []
            for index in 0..<300 {
                let answer = try await Self.create(
                    client,
                    [
                        "longDynamicLink": "https://links.example.com/?link=https%3A%2F%2Fexample.com%2F\(index)",
                        "suffix": ["option": "SHORT"],
                    ])
                links.insert(try #require(answer.string("shortLink")))
            }
            #expect(links.count == 300)
        }
    }

    @Test("UNGUESSABLE suffixes hold 96 bits in 17 base62 characters")
    func unguessableEncoding() {
        #expect(SuffixGenerator.base62(high: 0, low: 0) == "00000000000000000")
        #expect(SuffixGenerator.base62(high: 0, low: 61) == "0000000000000000z")
        #expect(SuffixGenerator.base62(high: .max, low: .max) == "1f2SI9UJPXvb7vdJ1")  // 2^96 - 1, as Python writes it in base62
        #expect(Set((0..<1000).map { _ in SuffixGenerator.unguessable() }).count == 1000)
    }

    @Test("a path names a suffix only as one segment of the suffix alphabet, never a path the service keeps")
    func suffixPaths() {
        let longest = String(repeating: "a", count: 64)
        for (path, suffix) in [
            ("/Dyn1", "Dyn1"), ("/a-b_C9", "a-b_C9"), ("/\(longest)", longest), ("/healthzz", "healthzz"), ("/metric", "metric"),
        ] {
            #expect(ShortLinkPath.suffix(ofPath: Substring(path)).map(String.init) == suffix, "\(path)")
        }
        for path in [
            "", "/", "Dyn1", "//Dyn1", "/a/b", "/a.b", "/caf\u{E9}", "/a%20b", "/\(longest)a", "/healthz", "/readyz", "/metrics",
            "/favicon.ico", "/apple-app-site-association",
        ] {
            #expect(ShortLinkPath.suffix(ofPath: Substring(path)) == nil, "\(path)")
        }
        // The event loop asks the bytes of a path inside a longer buffer.
        let inRequest = Substring("GET /Dyn1 HTTP/1.1").dropFirst(4).prefix(5)
        #expect(ShortLinkPath.suffix(ofPath: inRequest) == "Dyn1")
    }

    @Test("the preview page appears on phones unless efr=1; ?d=1 shows the link's debug page")
    func previewAndDebug() async throws {
        try await Self.harness().run { client in
            let long = "/?link=https%3A%2F%2Fexample.com%2Fp%2F3&apn=com.example.app&ibi=com.example.app&st=%3Cb%3EBold%3C%2Fb%3E&sd=Desc"
            let preview = try await client.page(long, agent: UserAgents.iPhone)
            #expect(preview.status == .ok)
            #expect(preview.title == "&lt;b&gt;Bold&lt;/b&gt;")
            #expect(preview.href("button") == "https://open.example.com\(long)&efr=1")
            #expect(preview.href("link") == "https://example.com/p/3")
            let android = try await client.page(long, agent: UserAgents.android)
            #expect(android.href("button")?.hasPrefix("intent://links.example.com\(long)&efr=1#Intent;") == true)
            let forced = try await client.page(long + "&efr=1", agent: UserAgents.iPhone)
            #expect(forced.headers[.location] == "https://apps.apple.com/app/id1234567890")
            let debug = try await client.page(long + "&d=1")
            #expect(debug.status == .ok && debug.title == "Link preview")
            #expect(debug.html.contains("<dt>apn</dt><dd>com.example.app</dd>"))
            #expect(debug.html.contains("<dt>Computer</dt><dd>Straight to https://example.com/p/3</dd>"))
            // The Android target is the intent a phone would really get: this link, without `d=1`.
            let escaped = long.replacingOccurrences(of: "&", with: "&amp;")
            #expect(debug.html.contains("<dt>Android phone</dt><dd>A preview page; then: Straight to intent://links.example.com\(escaped)#Intent;"))
            #expect(debug.html.contains("&lt;b&gt;Bold"))
        }
    }

    @Test("statistics after a scripted series of clicks, in the Dynamic Links shape")
    func statistics() async throws {
        try await Self.harness().run { client in
            let answer = try await Self.create(
                client,
                [
                    "longDynamicLink": "https://links.example.com/?link=https%3A%2F%2Fexample.com%2Fp%2F4&apn=com.example.app&ibi=com.example.app&efr=1"
                ])
            let short = try #require(answer.string("shortLink"))
            let path = String(short.dropFirst("https://links.example.com".count))
            for _ in 0..<3 { _ = try await client.page(path) }  // desktop: click + redirect to the link
            for _ in 0..<2 { _ = try await client.page(path, agent: UserAgents.iPhone) }  // App Store
            _ = try await client.page(path, agent: UserAgents.android)  // intent to the app
            _ = try await client.page(path, agent: UserAgents.scanner)  // a crawler's fetch is not a click
            _ = try await client.page(path, agent: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)")  // nor is a chat app's preview
            _ = try await client.page(path, method: .head)  // HEAD counts nothing
            let encoded = ActionLinkEncoder.percentEncode(short)
            let stats = try await client.get("/v1/\(encoded)/linkStats?durationDays=7&key=\(Self.key)")
            #expect(stats.status == .ok, "\(stats.json)")
            let rows = try #require(stats["linkEventStats"] as? [[String: String]])
            func count(_ platform: String, _ event: String) -> String? {
                rows.first { $0["platform"] == platform && $0["event"] == event }?["count"]
            }
            #expect(count("DESKTOP", "CLICK") == "3")
            #expect(count("DESKTOP", "REDIRECT") == "3")
            #expect(count("IOS", "CLICK") == "2")
            #expect(count("IOS", "REDIRECT") == "2")
            #expect(count("ANDROID", "REDIRECT") == "1")
            #expect(count("OTHER", "CLICK") == nil)
            #expect(count("ANDROID", "CLICK") == "1")
            // Two rows for each of three platforms, only the API's own event names; nothing for the crawler or the preview.
            #expect(rows.count == 6)
            #expect(Set(rows.compactMap { $0["event"] }).isSubset(of: ["CLICK", "REDIRECT", "APP_INSTALL", "APP_FIRST_OPEN", "APP_RE_OPEN"]))
            #expect(try await client.get("/v1/\(encoded)/linkStats?durationDays=0&key=\(Self.key)").status == .badRequest)
            #expect(try await client.get("/v1/\(encoded)/linkStats?durationDays=7").status == .forbidden)
            let metrics = try await client.client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            #expect(metrics.contains(#"linkdomain_link_events_total{platform="desktop",event="CLICK"} 3"#), "\(metrics)")
            #expect(metrics.contains(#"linkdomain_link_events_total{platform="iOS",event="REDIRECT_TO_STORE"} 2"#))
            let missing = ActionLinkEncoder.percentEncode("https://links.example.com/nope")
            #expect(try await client.get("/v1/\(missing)/linkStats?durationDays=7&key=\(Self.key)").status == .notFound)
        }
    }

    @Test("an unknown suffix is a branded 404 page")
    func unknownSuffix() async throws {
        try await Self.harness().run { client in
            let page = try await client.page("/AbCdEf")
            #expect(page.status == .notFound)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8" && page.title == "Page not found")
        }
    }

    @Test("import: good, duplicate and malformed rows, with line numbers; a second import skips everything")
    func importFile() async throws {
        let store = try SQLiteStore(path: FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString).sqlite").path)
        let importer = ShortLinkImporter(store: store, publicBaseURL: "https://links.example.com", policy: RedirectPolicy(authorizedDomains: ["example.com"]))
        let csv = """
            shortLink,longLink,createdAt
            https://links.example.com/abc1,"https://links.example.com/?link=https%3A%2F%2Fexample.com%2F1&apn=com.example.app",2023-05-01T10:00:00Z
            https://links.example.com/abc2,https://links.example.com/?link=https%3A%2F%2Fexample.com%2F2,1683000000
            https://links.example.com/abc1,"https://links.example.com/?link=https%3A%2F%2Fexample.com%2F1&apn=com.example.app",2023-05-01T10:00:00Z
            https://other.example.com/abc3,https://links.example.com/?link=https%3A%2F%2Fexample.com%2F3,
            https://links.example.com/abc4,https://links.example.com/?apn=x,
            https://links.example.com/abc5,https://links.example.com/?link=https%3A%2F%2Fexample.com%2F5,yesterday
            https://links.example.com/abc1,https://links.example.com/?link=https%3A%2F%2Fexample.com%2Fdifferent,

            """
        let report = try await importer.importCSV(csv)
        #expect(report.imported == 2)
        #expect(report.skipped == 1)
        #expect(report.invalid.map(\.line) == [5, 6, 7, 8])
        #expect(report.invalid[0].reason.contains("not a short link"))
        #expect(report.invalid[3].reason.contains("already stands for another link"))
        #expect(try await store.shortLink(suffix: "abc1")?.createdAt == 1_682_935_200_000)
        #expect(try await store.shortLink(suffix: "abc2")?.createdAt == 1_683_000_000_000)
        let again = try await importer.importCSV(csv)
        #expect(again.imported == 0 && again.skipped == 3)

        let json =
            #"[{"shortLink":"https://links.example.com/js1","longLink":"https://links.example.com/?link=https%3A%2F%2Fexample.com%2Fj","createdAt":1683000000000},{"shortLink":"nope"}]"#
        let jsonReport = try await importer.importJSON(json)
        #expect(jsonReport.imported == 1 && jsonReport.invalid.map(\.line) == [2])
    }
}
