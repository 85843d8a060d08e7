import Hummingbird

/// Something that must hold before the service takes traffic (the backend being reachable, say).
public protocol ReadinessCheck: Sendable {
    /// A short name, shown when the check fails.
    var name: String { get }
    func isReady() async -> Bool
}

/// `/healthz` answers while the process serves requests; `/readyz` once every readiness check passes.
struct HealthController<Context: RequestContext>: Sendable {
    let readinessChecks: [any ReadinessCheck]
    static var paths: [String] { ["/healthz", "/readyz"] }

    func addRoutes(to router: Router<Context>) {
        router.get(RouterPath(Self.paths[0])) { _, _ in PlainText.response(.ok, "ok\n") }
        router.get(RouterPath(Self.paths[1])) { _, _ in
            var failing: [String] = []
            for check in readinessChecks where await !check.isReady() {
                failing.append(check.name)
            }
            if failing.isEmpty { return PlainText.response(.ok, "ready\n") }
            return PlainText.response(.serviceUnavailable, "not ready: \(failing.joined(separator: ", "))\n")
        }
    }
}

/// Small `text/plain` answers, for health checks and error pages alike.
enum PlainText {
    static func response(_ status: HTTPResponse.Status, _ text: String, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = headers[.cacheControl] ?? "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
