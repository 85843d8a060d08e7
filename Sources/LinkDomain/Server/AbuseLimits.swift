import Foundation
import HTTPTypes
import Hummingbird
import LinkDomainCore
import LinkDomainStorage

/// Refuses what no legitimate client sends: over-long URLs (414) and oversized headers (431), by
/// ``AdmissionPolicy``, and
/// rate-limits every POST and the link API per client (429 with `Retry-After`).
struct AbuseLimitsMiddleware<Context: ClientAddressRequestContext>: RouterMiddleware {
    let limiter: RateLimiter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let refusal = AdmissionPolicy.refusal(urlBytes: request.uri.description.utf8.count, headers: request.headers) {
            return PlainText.response(refusal.status, refusal.text)
        }
        if request.method == .post || request.uri.path.hasPrefix("/v1/") {
            // A token from the client's bucket (``ClientAddressMiddleware`` named the client). Thrown,
            // so that the error pages answer in the path's kind: a branded page on a page's form.
            if let wait = limiter.take(context.clientAddress) { throw HTTPError(.tooManyRequests, headers: [.retryAfter: String(wait)]) }
        }
        return try await next(request, context)
    }
}
