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

    var routes: RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        routes.get(RouterPath(RoutePaths.health)) { _, _ in PlainText.response(.ok, "ok\n") }
        routes.get(RouterPath(RoutePaths.readiness)) { _, _ in
            var failing: [String] = []
            for check in readinessChecks where await !check.isReady() {
                failing.append(check.name)
            }
            if failing.isEmpty { return PlainText.response(.ok, "ready\n") }
            return PlainText.response(.serviceUnavailable, "not ready: \(failing.joined(separator: ", "))\n")
        }
        return routes
    }
}
