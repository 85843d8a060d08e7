import HTTPTypes
import LinkDomainCore
import LinkDomainStorage
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
        logger.info(
            "\(message)",
            metadata: [
                "method": .string(method.rawValue),
                "path": .string(path),
                "status": .stringConvertible(status),
                "duration_ms": .string(LogTime.milliseconds(duration)),
            ])
    }
}
