import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage
import Logging
import Testing

@Suite("Security headers on every status")
struct SecurityHeadersTests {
    static let api = "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=\(Fixtures.apiKey)"

    /// A request for each status the service answers, from the router, its middleware and the event loop.
    static let requests: [(String, HTTPRequest.Method, HTTPFields, String?, HTTPResponse.Status)] = [
        ("/.well-known/assetlinks.json", .get, [:], nil, .ok),
        ("/healthz", .get, [:], nil, .ok),
        (
            "/__/auth/links?link="
                + "https%3A%2F%2Flinks.example.com%2F__%2Fauth%2Faction%3Fmode%3DsignIn%26oobCode%3Dx%26apiKey%3Dk%26continueUrl%3Dhttps%253A%252F%252Fexample.com%252F",
            .get, [.userAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"], nil, .seeOther
        ),
        (
            "/__/auth/action?mode=resetPassword&oobCode=nope&apiKey=k", .get,
            [.userAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"], nil, .badRequest
        ),
        ("/nothing/here", .get, [:], nil, .notFound),
        ("/.well-known/assetlinks.json", .delete, [:], nil, .notFound),
        ("/healthz", .post, [:], "x", .notFound),
        (api, .post, [.contentType: "application/json"], String(repeating: "x", count: 70_000), .contentTooLarge),
        ("/" + String(repeating: "a", count: 9000), .get, [:], nil, .uriTooLong),
    ]

    @Test("a configured logo's origin, and only it, may be loaded as an image")
    func logoOrigin() {
        #expect(SecurityHeaders.origin("https://cdn.example.com:8443/brand/logo.png?v=2") == "https://cdn.example.com:8443")
        #expect(SecurityHeaders.origin("http://cdn.example.com/logo.png") == nil)
        let headers = SecurityHeaders(terminatesTLS: false, trustedProxies: [], imageOrigin: "https://cdn.example.com")
        #expect(headers.contentSecurityPolicy.contains("img-src 'self' https://cdn.example.com;"))
        #expect(SecurityHeaders(terminatesTLS: false, trustedProxies: []).contentSecurityPolicy.contains("img-src 'self';"))
    }

    @Test("Content-Security-Policy, nosniff, no-referrer and DENY on every answer")
    func everyStatus() async throws {
        let services = try await Fixtures.services()
        try await Fixtures.insertCode("x", type: .emailSignIn, askedByApp: false, into: services)
        try await LinkDomainApplication.build(services, logger: .init(label: "test")).test(.live) { client in
            for (path, method, headers, body, status) in Self.requests {
                try await client.execute(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }) { response in
                    #expect(response.status == status, "\(method) \(path.prefix(60))")
                    #expect(response.headers[.contentSecurityPolicy] == SecurityHeaders.contentSecurityPolicy(), "\(status)")
                    #expect(response.headers[.xContentTypeOptions] == "nosniff", "\(status)")
                    #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer", "\(status)")
                    #expect(response.headers[HTTPField.Name("X-Frame-Options")!] == "DENY", "\(status)")
                }
            }
        }
    }
}
