import Foundation
import HTTPTypes
import Hummingbird

/// Per-client token buckets: `burst` requests at once, refilled at `perMinute` a minute.
actor RateLimiter {
    struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    let perMinute: Double
    let burst: Double
    private var buckets: [String: Bucket] = [:]
    private let clock = ContinuousClock()

    init(perMinute: Int, burst: Int) {
        self.perMinute = Double(perMinute)
        self.burst = Double(burst)
    }

    /// Takes a token for `key`: nil when allowed, else the seconds to wait before one is back.
    func take(_ key: String) -> Int? {
        let now = clock.now
        var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
        let elapsed = bucket.updated.duration(to: now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        bucket.tokens = min(burst, bucket.tokens + seconds * perMinute / 60)
        bucket.updated = now
        defer {
            buckets[key] = bucket
            if buckets.count > 50_000 { forgetFullBuckets(now) }
        }
        guard bucket.tokens >= 1 else { return max(1, Int(((1 - bucket.tokens) * 60 / perMinute).rounded(.up))) }
        bucket.tokens -= 1
        return nil
    }

    /// Buckets that have refilled completely hold no information: drop them so memory stays bounded.
    private func forgetFullBuckets(_ now: ContinuousClock.Instant) {
        let refill = Duration.seconds(burst * 60 / perMinute)
        buckets = buckets.filter { $0.value.updated.duration(to: now) < refill }
    }
}

/// Refuses what no legitimate client sends: over-long URLs (414) and oversized headers (431), and
/// rate-limits every POST and the link API per client address (429 with `Retry-After`).
struct AbuseLimitsMiddleware: RouterMiddleware {
    typealias Context = LinkDomainRequestContext

    static let maximumURLLength = 8 * 1024
    static let maximumHeaderBytes = 32 * 1024

    let limiter: RateLimiter
    let trustedProxies: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.description.utf8.count > Self.maximumURLLength {
            return PlainText.response(.uriTooLong, "414 URI Too Long: links are never this long.\n")
        }
        if Self.headerBytes(request.headers) > Self.maximumHeaderBytes {
            return PlainText.response(.requestHeaderFieldsTooLarge, "431 Request Header Fields Too Large\n")
        }
        if request.method == .post || request.uri.path.hasPrefix("/v1/") {
            if let wait = await admit(request, context: context) { return PlainText.tooManyRequests(wait: wait) }
        }
        return try await next(request, context)
    }

    /// Takes a token from the client's bucket: nil when allowed, else the seconds to wait.
    func admit(_ request: Request, context: Context) async -> Int? {
        await limiter.take(clientAddress(request, context: context))
    }

    /// The size of the header section as sent: each line's name, ": ", value and CRLF.
    static func headerBytes(_ headers: HTTPFields) -> Int {
        headers.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 4 }
    }

    /// The peer's address; behind a trusted proxy, the nearest address in `X-Forwarded-For` that is
    /// not itself a trusted proxy (the leftmost entries are the client's to write, so never trusted).
    func clientAddress(_ request: Request, context: Context) -> String {
        let peer = context.clientKey
        guard trustedProxies.contains(peer), let forwarded = request.headers[.xForwardedFor] else { return peer }
        let hops = forwarded.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return hops.last { !trustedProxies.contains($0) } ?? peer
    }
}
