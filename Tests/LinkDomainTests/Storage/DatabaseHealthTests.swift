import Foundation
@testable import LinkDomain
@testable import LinkDomainCore
import LinkDomainExercises
@testable import LinkDomainStorage
import Logging
import Prometheus
import Testing

@Suite("The database's health: probed, reported, and refused at once while away")
struct DatabaseHealthTests {
    @Test("a call past its deadline is given up with unavailable; one within it returns")
    func deadline() async throws {
        // Without the deadline the work would finish (after 30 s) and return instead of throwing.
        await #expect(throws: StoreError.unavailable) {
            try await withDeadline(.milliseconds(100)) { try await Task.sleep(for: .seconds(30)) }
        }
        #expect(try await withDeadline(.seconds(5)) { 42 } == 42)
    }

    @Test("the probe finds a database that is not there, /readyz says why and since when, /metrics shows it")
    func downAndUp() async throws {
        let clock = ManualWallClock(milliseconds: 1_000_000)
        let metrics = LinkMetrics()
        // Nothing listens on port 9: connecting is refused at once.
        let away = try PostgresStore(url: "postgres://nobody@127.0.0.1:9/nothing", deadline: .seconds(1), logger: Logger(label: "test"))
        let probe = DatabaseProbe(
            store: away, health: away.health, interval: .seconds(1), deadline: .seconds(1), clock: clock, metrics: metrics,
            logger: Logger(label: "test"))
        let readiness = DatabaseReadiness(health: away.health, clock: clock)
        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await away.run() }
            await probe.probe()
            let ready = await readiness.isReady()
            #expect(away.health.isDown && !ready)
            clock.advance(seconds: 3)
            #expect(readiness.detail?.hasPrefix("database: unavailable for 3 s (") == true, "\(readiness.detail ?? "")")
            // While it is away, calls are refused as unavailable (a refused connection would otherwise say `database`).
            await #expect(throws: StoreError.unavailable) { _ = try await away.shortLink(suffix: "abcd") }
            group.cancelAll()
        }
        let text = try await metricsText(metrics)
        #expect(text.contains(#"linkdomain_dependency_up{dependency="database"} 0"#), "\(text)")
        #expect(text.contains(#"linkdomain_dependency_errors_total{dependency="database"} 1"#))

        let sqlite = try SQLiteStore(path: FileManager.default.temporaryDirectory.appendingPathComponent("health-\(UUID().uuidString).sqlite").path)
        let health = DependencyHealth()
        health.record(up: false, reason: "earlier", at: 0)
        await DatabaseProbe(
            store: sqlite, health: health, interval: .seconds(1), deadline: .seconds(1), clock: clock, metrics: metrics,
            logger: Logger(label: "test")
        ).probe()
        #expect(!health.isDown && DatabaseReadiness(health: health, clock: clock).detail == nil)
    }

    private func metricsText(_ metrics: LinkMetrics) async throws -> String {
        String(decoding: metrics.exposition(), as: UTF8.self)
    }
}
