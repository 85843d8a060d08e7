import HTTPTypes
import Hummingbird
import Logging

/// One structured log line per request: method, path, status, duration.
///
/// The query string is never logged: email links carry single-use codes and API keys there.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, status: response.status.code, since: start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            log(request, status: status, since: start)
            throw error
        }
    }

    private func log(_ request: Request, status: Int, since start: ContinuousClock.Instant) {
        let elapsed = start.duration(to: .now)
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        logger.info("request", metadata: [
            "method": .string(request.method.rawValue),
            "path": .string(request.uri.path),
            "status": .stringConvertible(status),
            "duration_ms": .string(String(format: "%.3f", milliseconds)),
        ])
    }
}

/// Turns every error into a small plain-text page, so no path ever answers with another route's
/// HTML (an HTML catch-all on `assetlinks.json` silently breaks Android verification).
struct PlainErrorPageMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            let status = error.status
            let text = status == .notFound ? "Not Found: there is nothing at this address.\n" : "\(status.code) \(status.reasonPhrase)\n"
            return PlainText.response(status, text, headers: (error as? HTTPError)?.headers ?? [:])
        } catch {
            logger.error("unhandled error", metadata: ["error": .string(String(describing: type(of: error)))])
            return PlainText.response(.internalServerError, "500 Internal Server Error\n")
        }
    }
}

/// Headers every response carries: no script at all, nothing framed, nothing loaded from
/// elsewhere, no Referer (pages carry codes in their URLs).
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var contentSecurityPolicy: String {
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.referrerPolicy] = "no-referrer"
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xFrameOptions] = "DENY"
        return response
    }
}

extension HTTPField.Name {
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
}
