import Hummingbird
import LinkDomainCore
import LinkDomainStorage

/// Something that must hold before the service takes traffic (the backend being reachable, say).
public protocol ReadinessCheck: Sendable {
    /// A short name, shown when the check fails.
    var name: String { get }
    func isReady() async -> Bool
    /// Why it fails, for `/readyz`'s body (the name when nil).
    var detail: String? { get }
}

extension ReadinessCheck {
    public var detail: String? { nil }
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
                failing.append(check.detail ?? check.name)
            }
            if failing.isEmpty { return PlainText.response(.ok, "ready\n") }
            return PlainText.response(.serviceUnavailable, "not ready: \(failing.joined(separator: ", "))\n")
        }
        return routes
    }
}

/// `/readyz` fails while the database is away, and says since when and why.
struct DatabaseReadiness: ReadinessCheck {
    let health: DependencyHealth
    let clock: any WallClock
    var name: String { "database" }
    func isReady() async -> Bool { !health.isDown }

    var detail: String? {
        let state = health.current
        guard !state.isUp else { return nil }
        let seconds = max(0, (clock.nowMilliseconds() - state.since) / 1000)
        return "database: unavailable for \(seconds) s (\(state.reason ?? "no answer"))"
    }
}
