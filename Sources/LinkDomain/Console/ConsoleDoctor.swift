import LinkDomainCore
import LinkDomainStorage
import Synchronization

/// `linkdomain doctor` run from the console against this link domain's own public address (never
/// an address a request names), and its latest findings kept for the overview and the
/// association page. One run at a time; a run takes as long as the fetches it makes.
final class ConsoleDoctor: Sendable {
    struct Run: Sendable {
        /// Milliseconds since 1970.
        var finishedAt: Int64
        var findings: [DoctorFinding]
    }

    let base: String
    private let state = Mutex<(latest: Run?, running: Bool)>((nil, false))

    init(base: String) {
        self.base = base
    }

    var latest: Run? { state.withLock { $0.latest } }

    /// Runs the checks unless a run is under way (false then).
    func run(now: @Sendable () -> Int64) async -> Bool {
        let started = state.withLock { state -> Bool in
            guard !state.running else { return false }
            state.running = true
            return true
        }
        guard started else { return false }
        let findings = await DeploymentDoctor(base: base).run()
        state.withLock { $0 = (Run(finishedAt: now(), findings: findings), false) }
        return true
    }
}
