import Foundation
import HTTPTypes
import Hummingbird

/// Refuses what no legitimate client sends: over-long URLs (414) and oversized headers (431), by
/// ``AdmissionPolicy``, and
/// rate-limits every POST and the link API per client address (429 with `Retry-After`).
struct AbuseLimitsMiddleware: RouterMiddleware {
    typealias Context = LinkDomainRequestContext

    let limiter: RateLimiter
    let trustedProxies: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let refusal = AdmissionPolicy.refusal(urlBytes: request.uri.description.utf8.count, headers: request.headers) {
            return PlainText.response(refusal.status, refusal.text)
        }
        if request.method == .post || request.uri.path.hasPrefix("/v1/") {
            // Thrown, so that the error pages answer in the path's kind: a branded page on a page's form.
            if let wait = await admit(request, context: context) { throw HTTPError(.tooManyRequests, headers: [.retryAfter: String(wait)]) }
        }
        return try await next(request, context)
    }

    /// Takes a token from the client's bucket: nil when allowed, else the seconds to wait.
    func admit(_ request: Request, context: Context) async -> Int? {
        limiter.take(clientAddress(request, context: context))
    }

    /// The client as per-client budgets count it (``ClientKey``): the peer's address; behind a
    /// trusted proxy, the nearest address in `X-Forwarded-For` that is not itself a trusted proxy
    /// (the leftmost entries are the client's to write, so never trusted). IPv6 by its /64.
    func clientAddress(_ request: Request, context: Context) -> String {
        let peer = context.clientKey
        guard trustedProxies.contains(peer), let forwarded = request.headers[.xForwardedFor] else { return ClientKey.of(peer) }
        let hops = forwarded.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return ClientKey.of(hops.last { !trustedProxies.contains($0) } ?? peer)
    }
}
