import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Answers on the event loop are the router's answers")
struct ImmediateResponseTests {
    static let desktop = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"
    static let iPhone =
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"

    /// Requests the event loop answers (association files, the stylesheet, straight redirects)
    /// and, beside them, some it must leave to the router.
    static let requests: [(path: String, userAgent: String, method: HTTPRequest.Method)] = [
        ("/.well-known/apple-app-site-association", desktop, .get),
        ("/.well-known/apple-app-site-association", desktop, .head),
        ("/apple-app-site-association", desktop, .get),
        ("/.well-known/assetlinks.json", desktop, .get),
        ("/__/static/styles.css", desktop, .get),
        (
            "/__/auth/links?link="
                + ActionLinkEncoder.percentEncode(
                    "https://links.example.com/__/auth/action?apiKey=k&mode=signIn&oobCode=C&continueUrl=https%3A%2F%2Fexample.com%2Fdone"), desktop, .get
        ),
        ("/__/auth/action?apiKey=k&mode=signIn&oobCode=C&continueUrl=https%3A%2F%2Fexample.com%2Fdone&lang=fr", desktop, .get),
        ("/__/auth/action?apiKey=k&mode=signIn&oobCode=C&continueUrl=https%3A%2F%2Fexample.com%2Fdone&lang=fr", desktop, .head),
        ("/?link=https%3A%2F%2Fexample.com%2Fproduct&efr=1", desktop, .get),
        ("/?link=https%3A%2F%2Fexample.com%2Fproduct&efr=1", iPhone, .get),
        ("/?link=https%3A%2F%2Fevil.example.net%2F&efr=1", desktop, .get),
        ("/?nothing=here", desktop, .get),
        ("/__/auth/action?apiKey=k&mode=signIn&oobCode=C&continueUrl=https%3A%2F%2Fexample.com%2Fdone&d=1", desktop, .get),
        ("/__/auth/action?apiKey=k&mode=resetPassword&oobCode=C", iPhone, .get),
    ]

    struct Answer: Equatable {
        var status: HTTPResponse.Status
        var headers: [String: String]
        var body: String
    }

    static func answers(_ mode: TestingSetup) async throws -> [Answer] {
        let services = try await Fixtures.services()
        // The sign-in links' code, live and asked for by a web app: straight on to the site.
        try await Fixtures.insertCode("C", type: .emailSignIn, askedByApp: false, into: services)
        let application = LinkDomainApplication.build(services, logger: Logger(label: "test"))
        return try await application.test(mode) { client in
            var answers: [Answer] = []
            for request in requests {
                let answer = try await client.execute(uri: request.path, method: request.method, headers: [.userAgent: request.userAgent]) { response in
                    var headers: [String: String] = [:]
                    for field in response.headers where field.name != .date { headers[field.name.canonicalName] = field.value }
                    return Answer(status: response.status, headers: headers, body: Fixtures.withoutHandoffTokens(String(buffer: response.body)))
                }
                answers.append(answer)
            }
            return answers
        }
    }

    @Test("the same status, headers and body for each request, live or through the router alone")
    func sameAnswers() async throws {
        let live = try await Self.answers(.live)
        let routed = try await Self.answers(.router)
        for (index, request) in Self.requests.enumerated() {
            // The router alone adds no Content-Length; the wire always has one.
            var wire = live[index]
            wire.headers["content-length"] = nil
            var router = routed[index]
            router.headers["content-length"] = nil
            #expect(wire == router, "\(request.method) \(request.path)")
        }
        #expect(live[0].status == .ok && live[5].status == .seeOther && live[8].status == .found)
    }

    /// Short links to a straight Dynamic Links redirect, a sign-in link, and a preview page (the
    /// router's to render), plus one whose suffix is a router path.
    static func withShortLinks() async throws -> LinkDomainServices {
        let services = try await Fixtures.services()
        try await Fixtures.insertCode("C", type: .emailSignIn, askedByApp: false, into: services)
        let action = "https://links.example.com/__/auth/action?apiKey=k&mode=signIn&oobCode=C&continueUrl=https%3A%2F%2Fexample.com%2Fdone"
        for (suffix, query) in [
            ("Dyn1", "link=https%3A%2F%2Fexample.com%2Fproduct&efr=1"), ("Sgn1", "link=" + ActionLinkEncoder.percentEncode(action)),
            ("Prv1", "link=https%3A%2F%2Fexample.com%2Fproduct&ibi=com.example.mail"), ("healthz", "link=https%3A%2F%2Fexample.com%2F&efr=1"),
        ] {
            try await services.linkStore.insertShortLink(ShortLinkRecord(suffix: suffix, longLinkQuery: query, createdAt: 1, origin: .import))
        }
        return services
    }

    @Test("short links: answered on the event loop once resolved, with the router's answer, route label and counted events")
    func shortLinks() async throws {
        let (desktop, iPhone) = (Self.desktop, Self.iPhone)
        let requests: [(path: String, userAgent: String, method: HTTPRequest.Method)] = [
            ("/Dyn1", desktop, .get), ("/Dyn1", desktop, .get), ("/Dyn1", desktop, .head), ("/Sgn1", desktop, .get), ("/Sgn1", desktop, .get),
            ("/Prv1", iPhone, .get), ("/Prv1", iPhone, .get), ("/Dyn1?d=1", desktop, .get), ("/healthz", desktop, .get), ("/healthz", desktop, .get),
        ]
        var results: [[Answer]] = []
        var stats: [[LinkEventCount]] = []
        for mode in [TestingSetup.live, .router] {
            let services = try await Self.withShortLinks()
            let application = LinkDomainApplication.build(services, logger: Logger(label: "test"))
            results.append(
                try await application.test(mode) { client in
                    var answers: [Answer] = []
                    for request in requests {
                        answers.append(
                            try await client.execute(uri: request.path, method: request.method, headers: [.userAgent: request.userAgent]) { response in
                                var headers: [String: String] = [:]
                                for field in response.headers where field.name != .date && field.name != .contentLength {
                                    headers[field.name.canonicalName] = field.value
                                }
                                return Answer(status: response.status, headers: headers, body: Fixtures.withoutHandoffTokens(String(buffer: response.body)))
                            })
                    }
                    let metrics = try await client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
                    #expect(metrics.contains(#"linkdomain_http_requests_total{route="/**",method="GET",status="302"} 2"#), "\(mode)")
                    #expect(metrics.contains(#"linkdomain_http_requests_total{route="/**",method="GET",status="303"} 2"#), "\(mode)")
                    return answers
                })
            await services.linkEvents.flush()
            stats.append(try await services.linkStore.eventCounts(suffix: "Dyn1", fromDay: 0) + services.linkStore.eventCounts(suffix: "Sgn1", fromDay: 0))
        }
        #expect(results[0] == results[1])
        #expect(results[0].map(\.status.code) == [302, 302, 302, 303, 303, 200, 200, 200, 200, 200])
        #expect(results[0][8].body == "ok\n" && results[0][9].body == "ok\n")
        // Two GETs each (HEAD and the debug page count nothing), whichever way they were answered.
        for counts in stats {
            #expect(
                counts == [
                    LinkEventCount(platform: .desktop, event: .click, count: 2), LinkEventCount(platform: .desktop, event: .redirectToFallback, count: 2),
                    LinkEventCount(platform: .desktop, event: .click, count: 2), LinkEventCount(platform: .desktop, event: .redirectToFallback, count: 2),
                ])
        }
    }

    @Test("the event loop answers a short link only once this replica has read it, and never a router path")
    func shortLinkKinds() async throws {
        let services = try await Self.withShortLinks()
        let responder = services.immediate
        #expect(responder.match("/Dyn1")?.kind == .shortLink)
        #expect(responder.match("/healthz") == nil && responder.match("/metrics") == nil)
        #expect(responder.match("/a/b") == nil && responder.match("/a.b") == nil)
        let logger = Logger(label: "test")
        #expect(responder.answer(to: .shortLink, method: .get, path: "/Dyn1", query: nil, headers: .init(userAgent: Self.desktop), logger: logger) == nil)
        _ = try await services.linkStore.shortLink(suffix: "Dyn1")
        let answer = responder.answer(to: .shortLink, method: .get, path: "/Dyn1", query: nil, headers: .init(userAgent: Self.desktop), logger: logger)
        #expect(answer?.response.status == .found && answer?.response.headers[.location] == "https://example.com/product")
    }

    @Test("live answers carry a Date header in the HTTP format")
    func dateHeader() async throws {
        let application = LinkDomainApplication.build(try await Fixtures.services(), logger: Logger(label: "test"))
        try await application.test(.live) { client in
            let before = Int(Date().timeIntervalSince1970)
            let date = try await client.execute(uri: "/.well-known/assetlinks.json", method: .get) { $0.headers[.date] }
            let after = Int(Date().timeIntervalSince1970)
            #expect((before...after).map(HTTPDate.format).contains(date ?? ""), "\(date ?? "no Date header")")
        }
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(1_795_000_000) == "Wed, 18 Nov 2026 11:06:40 GMT")
    }

    @Test("HSTS: always when the server terminates TLS; behind a proxy only when a trusted one says https")
    func strictTransportSecurity() {
        let direct = SecurityHeaders(terminatesTLS: true, trustedProxies: [])
        #expect(direct.isHTTPS(peer: "203.0.113.9", requestHeaders: [:]))
        let proxied = SecurityHeaders(terminatesTLS: false, trustedProxies: ["10.0.0.2"])
        #expect(proxied.isHTTPS(peer: "10.0.0.2", requestHeaders: [.xForwardedProto: "https"]))
        #expect(proxied.isHTTPS(peer: "10.0.0.2", requestHeaders: [.xForwardedProto: "HTTPS, http"]))
        #expect(!proxied.isHTTPS(peer: "10.0.0.2", requestHeaders: [.xForwardedProto: "http"]))
        #expect(!proxied.isHTTPS(peer: "10.0.0.2", requestHeaders: [:]))
        #expect(!proxied.isHTTPS(peer: "198.51.100.7", requestHeaders: [.xForwardedProto: "https"]))
        var headers: HTTPFields = [:]
        proxied.add(to: &headers, peer: "10.0.0.2", requestHeaders: [.xForwardedProto: "https"])
        #expect(headers[.strictTransportSecurity] == "max-age=31536000")
        headers = [:]
        proxied.add(to: &headers, peer: "198.51.100.7", requestHeaders: [.xForwardedProto: "https"])
        #expect(headers[.strictTransportSecurity] == nil)
    }
}
