import HTTPTypes
import Hummingbird
import LinkDomainCore
import LinkDomainStorage
import Logging

/// Finishes every answer, whichever path gave it: the security headers, the request metric and
/// the log line. The router's ``ResponseFinishingMiddleware`` and the event-loop fast path
/// (``ImmediateResponseHandler``) both call it, so their answers cannot drift apart.
struct ResponseFinisher: Sendable {
    let securityHeaders: SecurityHeaders
    let metrics: LinkMetrics

    /// - Parameters:
    ///   - route: the route pattern metrics count the request under (never the raw path, which carries codes).
    ///   - path: the request's path without its query (queries carry codes and API keys).
    func finish(
        _ headers: inout HTTPFields, status: HTTPResponse.Status, method: HTTPRequest.Method, path: String, route: String,
        peer: @autoclosure () -> String?, requestHeaders: HTTPFields, since start: ContinuousClock.Instant, logger: Logger
    ) {
        securityHeaders.add(to: &headers, peer: peer(), requestHeaders: requestHeaders)
        record(status: status, method: method, path: path, route: route, since: start, logger: logger)
    }

    /// The request metric and the log line alone, for answers written with their headers already
    /// in place (``RawResponder``). The path is made only when the line is logged.
    func record(
        status: HTTPResponse.Status, method: HTTPRequest.Method, path: @autoclosure () -> String, route: String,
        since start: ContinuousClock.Instant, logger: Logger
    ) {
        let duration = start.duration(to: .now)
        metrics.request(route: route, method: method, status: status.code, duration: duration)
        guard logger.logLevel <= .info else { return }
        RequestLog.record(logger, method: method, path: path(), status: status.code, duration: duration)
    }
}

/// The outermost middleware: every response the router gives, a thrown 404 or 413 turned into a
/// page included, is finished by ``ResponseFinisher``.
struct ResponseFinishingMiddleware<Context: RemoteAddressRequestContext>: RouterMiddleware {
    let finisher: ResponseFinisher

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        // Errors never arrive here: the error-page middleware inside turns each into a response.
        var response = try await next(request, context)
        finisher.finish(
            &response.headers, status: response.status, method: request.method, path: request.uri.path,
            route: context.endpointPath ?? "unmatched", peer: context.remoteAddress?.peerText, requestHeaders: request.headers,
            since: start, logger: context.logger)
        return response
    }
}
