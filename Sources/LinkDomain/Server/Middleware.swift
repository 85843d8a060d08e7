import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// One structured log line per request: method, path, status, duration.
///
/// The query string is never logged: email links carry single-use codes and API keys there.
enum RequestLog {
    /// The message of every request's line.
    static let message = "request"

    static func record(_ logger: Logger, method: HTTPRequest.Method, path: String, status: Int, duration: Duration) {
        // The service's own handler writes the line straight from the values; another (in tests,
        // or a host's) gets the event.
        if let handler = logger.handler as? LineLogHandler {
            handler.writeRequestLine(method: method.rawValue, path: path, status: status, duration: duration)
            return
        }
        logger.info("\(message)", metadata: [
            "method": .string(method.rawValue),
            "path": .string(path),
            "status": .stringConvertible(status),
            "duration_ms": .string(LogTime.milliseconds(duration)),
        ])
    }
}

/// Turns every error into a small plain-text page, so no path ever answers with another route's
/// HTML (an HTML catch-all on `assetlinks.json` silently breaks Android verification).
struct PlainErrorPageMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            let status = error.status
            let text = status == .notFound ? "Not Found: there is nothing at this address.\n" : "\(status.code) \(status.reasonPhrase)\n"
            return PlainText.response(status, text, headers: (error as? HTTPError)?.headers ?? [:])
        } catch {
            context.logger.error("unhandled error", metadata: ["error": .string(String(describing: type(of: error)))])
            return PlainText.response(.internalServerError, "500 Internal Server Error\n")
        }
    }
}

/// Headers every response carries: no script at all, nothing framed, nothing loaded from
/// elsewhere, no Referer (pages carry codes in their URLs); and on HTTPS, HSTS.
struct SecurityHeaders: Sendable {
    /// The policy: images from this origin and, when the pages show a logo from elsewhere, its origin.
    static func contentSecurityPolicy(imageOrigin: String? = nil) -> String {
        "default-src 'none'; style-src 'self'; img-src 'self'\(imageOrigin.map { " " + $0 } ?? ""); form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    }

    /// `https://host[:port]` of an https URL: what a CSP source names.
    static func origin(_ url: String) -> String? {
        guard let address = WebAddress(url), address.scheme == "https" else { return nil }
        return "https://\(address.host)" + (address.port.map { ":\($0)" } ?? "")
    }

    /// A year; subdomains are left to their own servers.
    static var strictTransportSecurity: String { "max-age=31536000" }

    /// The server terminates TLS itself: every response went over HTTPS.
    let terminatesTLS: Bool
    /// Proxies whose `X-Forwarded-Proto` says whether the client used HTTPS.
    let trustedProxies: Set<String>
    /// Built once: every response carries it.
    let contentSecurityPolicy: String
    /// Every response's headers, without and with HSTS, built once.
    private let plainFields: HTTPFields
    private let httpsFields: HTTPFields

    /// - Parameter imageOrigin: the origin of the configured logo, which pages load.
    init(terminatesTLS: Bool, trustedProxies: Set<String>, imageOrigin: String? = nil) {
        self.terminatesTLS = terminatesTLS
        self.trustedProxies = trustedProxies
        contentSecurityPolicy = Self.contentSecurityPolicy(imageOrigin: imageOrigin)
        plainFields = [.xContentTypeOptions: "nosniff", .referrerPolicy: "no-referrer", .contentSecurityPolicy: contentSecurityPolicy, .xFrameOptions: "DENY"]
        httpsFields = plainFields + [HTTPField(name: .strictTransportSecurity, value: Self.strictTransportSecurity)]
    }

    /// Whether the client reached us over HTTPS (directly, or through a trusted proxy that says so).
    func isHTTPS(peer: @autoclosure () -> String?, requestHeaders: HTTPFields) -> Bool {
        isHTTPS(peer: peer(), forwardedProto: requestHeaders[.xForwardedProto])
    }

    /// The same, from the request's `X-Forwarded-Proto` alone.
    func isHTTPS(peer: @autoclosure () -> String?, forwardedProto: @autoclosure () -> String?) -> Bool {
        if terminatesTLS { return true }
        guard !trustedProxies.isEmpty, let proto = forwardedProto(), let peer = peer(), trustedProxies.contains(peer) else {
            return false
        }
        return proto.split(separator: ",").first?.trimmingCharacters(in: .whitespaces).lowercased() == "https"
    }

    func add(to headers: inout HTTPFields, peer: @autoclosure () -> String?, requestHeaders: HTTPFields) {
        for field in fields(https: isHTTPS(peer: peer(), requestHeaders: requestHeaders)) { headers[field.name] = field.value }
    }

    /// The headers themselves, for a response that went over HTTPS or not.
    func fields(https: Bool) -> HTTPFields {
        https ? httpsFields : plainFields
    }
}
