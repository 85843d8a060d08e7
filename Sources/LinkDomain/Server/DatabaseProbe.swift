import LinkDomainCore
import LinkDomainStorage
import Logging
import ServiceLifecycle

/// Asks the database a trivial question every `interval`, with a deadline, and keeps
/// ``DependencyHealth`` current: `/readyz` turns not-ready within an interval and a deadline of
/// losing the database and ready again as soon after its return, without a request having to
/// wait to find out. A quiet server (``ServerActivity``) with its database up probes nothing until
/// it serves again: the first `/readyz` after a quiet spell may answer from the last probe, while
/// the probe its arrival woke runs.
struct DatabaseProbe: Service {
    let store: any AuthStore
    let health: DependencyHealth
    let interval: Duration
    let deadline: Duration
    let clock: any WallClock
    let metrics: LinkMetrics
    let logger: Logger

    func run() async throws {
        metrics.dependency("database", isUp: true)
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            // A quiet server with its database up asks nothing: its next visitor wakes the probe,
            // which asks at once. A database that is down is watched until it is back, so that
            // no call fails fast on an outage that has ended.
            if !health.isDown { await cancelWhenGracefulShutdown { await ServerActivity.shared.waitUntilActive() } }
            await probe()
            // A stop need not wait out the interval.
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }

    func probe() async {
        let store = self.store
        var reason: String?
        do {
            try await withDeadline(deadline) { try await store.ping() }
        } catch StoreError.unavailable {
            reason = "no answer within \(deadline)"
        } catch StoreError.database(let detail) {
            reason = detail
        } catch let error as StoreError {
            reason = "\(error)"
        } catch {
            reason = String(describing: type(of: error))
        }
        let up = reason == nil
        if !up { metrics.dependencyError("database") }
        guard health.record(up: up, reason: reason, at: clock.nowMilliseconds()) else { return }
        metrics.dependency("database", isUp: up)
        if up {
            logger.notice("database available again")
        } else {
            logger.error("database unavailable", metadata: ["reason": .string(reason ?? "")])
        }
    }
}
