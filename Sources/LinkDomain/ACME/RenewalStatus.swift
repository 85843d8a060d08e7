import LinkDomainCore
import Synchronization

/// How ordering goes, for `/readyz`, `check` and the log: failures since the last success, and
/// when the next attempt may be made.
public final class RenewalStatus: Sendable {
    struct State {
        var failures = 0
        var failingSince: Int64?
        var lastError: String?
        var nextAttemptAt: Int64 = 0
    }

    private let state = Mutex(State())

    public init() {}

    var current: State { state.withLock { $0 } }

    func succeeded() {
        state.withLock { $0 = State() }
    }

    /// Records a failure at `now`; the next attempt waits by ``RenewalSchedule/retryDelay(afterFailures:)``.
    func failed(_ error: ACMEError, now: Int64) {
        state.withLock { state in
            state.failures += 1
            state.failingSince = state.failingSince ?? now
            state.lastError = error.description
            state.nextAttemptAt = now &+ RenewalSchedule.retryDelay(afterFailures: state.failures)
        }
    }
}
