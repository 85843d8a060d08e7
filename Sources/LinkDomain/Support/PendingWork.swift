import LinkDomainCore
import LinkDomainStorage
import ServiceLifecycle
import Synchronization

/// Work a request started and answered before it finished: a password reset's lookup and mail,
/// done after the answer so that the answer's timing cannot say whether the address has an
/// account. The emulator's code listing waits for it (a test reads what it asked for), and a
/// graceful stop finishes it before the database closes.
public final class PendingWork: Service, Sendable {
    private let tasks = Mutex<[Int: Task<Void, Never>]>([:])
    private let nextID = Atomic<Int>(0)

    public init() {}

    /// Starts `work` once the answer has had `delay` to leave (so that the work does not compete
    /// with writing it, which would show in its timing); it runs to its end whatever happens to
    /// the request.
    func start(after delay: Duration = .milliseconds(10), _ work: @escaping @Sendable () async -> Void) {
        let id = nextID.add(1, ordering: .relaxed).newValue
        tasks.withLock { tasks in
            tasks[id] = Task { [weak self] in
                try? await Task.sleep(for: delay)
                await work()
                _ = self?.tasks.withLock { $0.removeValue(forKey: id) }
            }
        }
    }

    /// Returns once everything started so far has finished.
    func drain() async {
        let running = tasks.withLock { Array($0.values) }
        for task in running { await task.value }
    }

    /// Waits for the graceful stop, then for the work in progress.
    public func run() async throws {
        try? await gracefulShutdown()
        await drain()
    }
}
