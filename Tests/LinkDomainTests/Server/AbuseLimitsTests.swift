import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Abuse limits")
struct AbuseLimitsTests {
    @Test("a token bucket per client: the burst, then a wait; other clients unaffected")
    func tokenBucket() async {
        let limiter = RateLimiter(perMinute: 60, burst: 3)
        for _ in 0..<3 { #expect(limiter.take("a") == nil) }
        #expect(limiter.take("a") == 1)
        #expect(limiter.take("b") == nil)
    }

    @Test("a token given back is there for the next take, never past the burst")
    func giveBack() async {
        let limiter = RateLimiter(perMinute: 1, burst: 2)
        for _ in 0..<2 { #expect(limiter.take("a") == nil) }
        #expect(limiter.take("a") != nil)
        limiter.giveBack("a")
        #expect(limiter.take("a") == nil)
        #expect(limiter.take("a") != nil)
        // A full bucket stays at the burst; an unknown client is left alone.
        limiter.giveBack("b")
        #expect(limiter.take("b") == nil)
        limiter.giveBack("b")
        limiter.giveBack("b")
        #expect(limiter.take("b") == nil)
        #expect(limiter.take("b") == nil)
        #expect(limiter.take("b") != nil)
    }

    @Test("POSTs and the link API get 429 with Retry-After past the burst; pages and health do not")
    func rateLimit() async throws {
        let harness = BackendHarness { configuration in
            configuration.limits.requestsPerMinute = 6
            configuration.limits.burst = 3
        }
        try await harness.run { client in
            for _ in 0..<3 {
                #expect(
                    try await client.call("accounts:createAuthUri", ["identifier": "a@example.com", "continueUri": "https://app.example.com/"]).status == .ok)
            }
            let limited = try await client.client.execute(
                uri: "/identitytoolkit.googleapis.com/v1/accounts:createAuthUri?key=k", method: .post,
                headers: [.contentType: "application/json"], body: ByteBuffer(string: "{}")
            ) { $0 }
            #expect(limited.status == .tooManyRequests)
            // At 6 a minute a token comes back within 10 s (how much sooner depends on the time the first three took).
            #expect(limited.headers[.retryAfter].flatMap { Int($0) }.map { (1...10).contains($0) } == true)
            #expect(try await client.get("/v1/x/linkStats?durationDays=1").status == .tooManyRequests)
            #expect(try await client.get("/healthz").status == .ok)
            #expect(try await client.page("/__/auth/action?mode=signIn&oobCode=C").status == .ok)
        }
    }

    @Test("behind a trusted proxy the client is the nearest untrusted X-Forwarded-For address")
    func trustedProxy() async throws {
        let harness = BackendHarness { configuration in
            configuration.limits.requestsPerMinute = 1
            configuration.limits.burst = 2
            configuration.limits.trustedProxies = ["127.0.0.1"]
        }
        try await harness.run { client in
            // A forged left entry ("198.51.100.7, ...") changes nothing: the client is still 203.0.113.1.
            var statuses: [HTTPResponse.Status] = []
            for forwardedFor in ["203.0.113.1", "198.51.100.7, 203.0.113.1", "203.0.113.1", "203.0.113.2"] {
                let answer = try await client.call(
                    "accounts:createAuthUri", ["identifier": "a@example.com", "continueUri": "https://app.example.com/"],
                    headers: [.xForwardedFor: forwardedFor])
                statuses.append(answer.status)
            }
            #expect(statuses == [.ok, .ok, .tooManyRequests, .ok])
        }
    }

    @Test("over-long URLs get 414 and oversized headers 431")
    func sizeLimits() async throws {
        try await BackendHarness().run { client in
            let long = try await client.page("/__/auth/action?mode=signIn&oobCode=" + String(repeating: "a", count: 9000))
            #expect(long.status == .uriTooLong)
            let headers: HTTPFields = [HTTPField.Name("X-Padding")!: String(repeating: "b", count: 40_000)]
            let big = try await client.page("/healthz", headers: headers)
            #expect(big.status == .requestHeaderFieldsTooLarge)
        }
    }
}
