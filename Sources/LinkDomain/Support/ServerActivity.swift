import LinkDomainCore
import LinkDomainStorage
import NIOCore
import Synchronization

/// Whether the server is serving anyone, for the background work that only matters while it is
/// (the database probe, the clicks' flush, the short-link change watch, the memory trimmer, the
/// mail queue's look without a nudge): an idle server then runs nothing at all, and spends no CPU.
///
/// The idle clocks say it (``IdleClock``): each event loop's clock marks the server active when a
/// connection opens on an idle loop and at every tick while the loop has connections, so a
/// request costs nothing here. The server is quiet once ``quietAfter`` has passed since the last
/// mark; work waiting in ``waitUntilActive()`` resumes at the next mark.
final class ServerActivity: Sendable {
    /// The process's own; the idle clocks mark it.
    static let shared = ServerActivity()

    /// How long after its last connection the server counts as quiet.
    let quietAfter: Duration
    /// Monotonic milliseconds of the last mark.
    private let lastMark: Atomic<Int64>
    private let waiting = Mutex<[UInt64: CheckedContinuation<Void, Never>]>([:])
    private let hasWaiters = Atomic<Bool>(false)
    private let nextWaiter = Atomic<UInt64>(0)

    init(quietAfter: Duration = .seconds(5)) {
        self.quietAfter = quietAfter
        lastMark = Atomic(Self.nowMilliseconds())
    }

    /// Someone is being served: work waiting for activity resumes.
    func mark() {
        // Sequentially consistent, with the waiter's flag and check below: either this mark sees
        // the waiter, or the waiter sees this mark.
        lastMark.store(Self.nowMilliseconds(), ordering: .sequentiallyConsistent)
        guard hasWaiters.load(ordering: .sequentiallyConsistent) else { return }
        let resumed = waiting.withLock { waiting in
            defer { waiting = [:] }
            hasWaiters.store(false, ordering: .sequentiallyConsistent)
            return Array(waiting.values)
        }
        for continuation in resumed { continuation.resume() }
    }

    /// Marks only when work is waiting: for a path that is activity without a connection the idle
    /// clocks see (a click counted by a test's router), at the cost of one load.
    func markIfWaiting() {
        if hasWaiters.load(ordering: .sequentiallyConsistent) { mark() }
    }

    /// No connection for ``quietAfter``.
    var isQuiet: Bool {
        Self.nowMilliseconds() - lastMark.load(ordering: .sequentiallyConsistent) >= quietAfter.milliseconds
    }

    /// Returns at once while the server is active; when it is quiet, at the next mark (or when
    /// the task is cancelled, at shutdown).
    func waitUntilActive() async {
        guard isQuiet, !Task.isCancelled else { return }
        let id = nextWaiter.add(1, ordering: .relaxed).newValue
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = waiting.withLock { waiting -> Bool in
                    // The flag first, then the check: a mark since the check above, or a
                    // cancellation, is not missed.
                    waiting[id] = continuation
                    hasWaiters.store(true, ordering: .sequentiallyConsistent)
                    guard !isQuiet || Task.isCancelled else { return false }
                    waiting[id] = nil
                    return true
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            waiting.withLock { $0.removeValue(forKey: id) }?.resume()
        }
    }

    private static func nowMilliseconds() -> Int64 {
        Int64(NIODeadline.now().uptimeNanoseconds / 1_000_000)
    }
}

extension Duration {
    /// Whole milliseconds.
    fileprivate var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }
}
