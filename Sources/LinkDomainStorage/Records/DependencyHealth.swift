import LinkDomainCore
import Synchronization

/// Whether a dependency (the database) answers, as its probe last found: read by `/readyz`, by
/// `/metrics`, and by the store itself to refuse at once, rather than wait, while it is away.
public final class DependencyHealth: Sendable {
    public struct State: Sendable, Equatable {
        public var isUp: Bool
        /// Milliseconds since 1970 when it last changed.
        public var since: Int64
        /// Why it is down (never with user data).
        public var reason: String?
    }

    private let state: Mutex<State>

    public init(now: Int64 = 0) {
        state = Mutex(State(isUp: true, since: now, reason: nil))
    }

    public var current: State { state.withLock { $0 } }
    public var isDown: Bool { !current.isUp }

    /// Records a probe's result; true when that changed the state.
    @discardableResult
    package func record(up: Bool, reason: String?, at now: Int64) -> Bool {
        state.withLock { state in
            guard state.isUp != up else {
                if !up { state.reason = reason }
                return false
            }
            state = State(isUp: up, since: now, reason: up ? nil : reason)
            return true
        }
    }
}

/// Runs `work`, or throws ``StoreError/unavailable`` once `deadline` passes first (the work is cancelled).
package func withDeadline<T: Sendable>(_ deadline: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await work() }
        group.addTask {
            try await Task.sleep(for: deadline)
            throw StoreError.unavailable
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw StoreError.unavailable }
        return first
    }
}
