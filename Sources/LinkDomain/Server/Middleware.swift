import Foundation
import HTTPTypes
import Hummingbird
import LinkDomainCore
import LinkDomainStorage
import Logging

/// Turns every error into an answer of its path's kind: on the pages' paths a branded, translated
/// page (a person is reading); everywhere else a small plain-text body, so no machine path ever
/// answers with HTML (an HTML catch-all on `assetlinks.json` silently breaks Android verification).
struct ErrorPageMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The branded pages; nil answers plain text everywhere.
    let pages: ErrorPages?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            return answer(error.status, headers: (error as? HTTPError)?.headers ?? [:], request: request)
        } catch {
            context.logger.error("unhandled error", metadata: ["error": .string(String(describing: type(of: error)))])
            return answer(.internalServerError, headers: [:], request: request)
        }
    }

    private func answer(_ status: HTTPResponse.Status, headers: HTTPFields, request: Request) -> Response {
        if let pages, RoutePaths.isPagePath(request.uri.path) {
            return pages.response(status, acceptLanguage: request.headers[.acceptLanguage], retryAfter: headers[.retryAfter])
        }
        if status == .tooManyRequests { return PlainText.tooManyRequests(retryAfter: headers[.retryAfter]) }
        let text = status == .notFound ? "Not Found: there is nothing at this address.\n" : "\(status.code) \(status.reasonPhrase)\n"
        return PlainText.response(status, text, headers: headers)
    }
}

/// In development, answers 421 to a request that names a host other than a loopback name or the
/// public host (``DevelopmentHosts``): a DNS-rebound page in the laptop's browser reaches nothing.
struct DevelopmentHostMiddleware<Context: RequestContext>: RouterMiddleware {
    let hosts: DevelopmentHosts

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard hosts.allows(request.head.authority) else {
            return PlainText.response(
                .misdirectedRequest,
                "421 Misdirected Request: in development this server answers only localhost, "
                    + "127.0.0.1, [::1] and \(hosts.publicHost).\n")
        }
        return try await next(request, context)
    }
}
