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
    /// What an operator must hear while it passes (a certificate near expiry), as `warning:` lines.
    func warnings() async -> [String]
}

extension ReadinessCheck {
    public var detail: String? { nil }
    public func warnings() async -> [String] { [] }
}

/// `/healthz` answers while the process serves requests; `/readyz` once every readiness check passes.
struct HealthController<Context: RequestContext>: Sendable {
    let readinessChecks: [any ReadinessCheck]

    var routes: RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        routes.get(RouterPath(RoutePaths.health)) { _, _ in PlainText.response(.ok, "ok\n") }
        routes.get(RouterPath(RoutePaths.readiness)) { _, _ in
            var failing: [String] = []
            var warnings: [String] = []
            for check in readinessChecks {
                if await !check.isReady() { failing.append(check.detail ?? check.name) }
                warnings += await check.warnings()
            }
            let warningLines = warnings.map { "warning: \($0)\n" }.joined()
            if failing.isEmpty { return PlainText.response(.ok, "ready\n" + warningLines) }
            return PlainText.response(.serviceUnavailable, "not ready: \(failing.joined(separator: ", "))\n" + warningLines)
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

/// The served certificate: not ready while ACME's stand-in is served (none issued yet); warnings
/// when it expires within a week or renewal has failed for a day.
struct CertificateReadiness: ReadinessCheck {
    let certificates: CertificateStore
    let renewal: RenewalStatus?
    /// The names ordered (empty with certificate files).
    let names: [String]
    let clock: any WallClock
    var name: String { "certificate" }

    func isReady() async -> Bool { certificates.served != nil || certificates.files != nil }

    var detail: String? {
        guard certificates.served == nil, certificates.files == nil else { return nil }
        let reason = renewal?.current.lastError.map { " (\($0))" } ?? " (ordering)"
        return "certificate: none issued yet for \(names.joined(separator: ", "))\(reason)"
    }

    func warnings() async -> [String] {
        guard let served = certificates.served else { return [] }
        let state = renewal?.current
        return RenewalSchedule.findings(
            names: served.names, notAfter: served.notAfter, failingSince: state?.failingSince, lastError: state?.lastError, now: clock.nowSeconds
        ).map { "certificate: \($0)" }
    }
}
