import HTTPTypes
import LinkDomainCore
import LinkDomainStorage
import Prometheus
import Synchronization

struct RequestMetricKey: Hashable, Sendable {
    let route: String
    let method: HTTPRequest.Method
    let status: Int
}

/// Metric objects made once per key and kept: the registry's own lookup builds and validates the
/// metric's name under its lock on every call, which showed in the request profile.
final class MetricCache<Key: Hashable & Sendable, Metric: Sendable>: Sendable {
    private let cache = Mutex<[Key: Metric]>([:])

    func metric(for key: Key, make: (Key) -> Metric) -> Metric {
        if let metric = cache.withLock({ $0[key] }) { return metric }
        let made = make(key)
        cache.withLock { $0[key] = made }
        return made
    }
}

/// Counts by action mode behind a lock, shared by the copies of ``LinkMetrics``.
final class SharedCounts: Sendable {
    private let counts = Mutex<[ActionMode: Int]>([:])

    func withLock<T>(_ body: (inout [ActionMode: Int]) -> T) -> T { counts.withLock { body(&$0) } }
}

/// A backend call's labels: the operation and how it ended (known codes only, so the set is bounded).
struct BackendCallKey: Hashable, Sendable {
    let operation: String
    let outcome: String
}

/// One backend operation's outcome: its calls and their latency.
struct BackendCallMetrics: Sendable {
    let calls: Counter
    let duration: DurationHistogram

    func record(_ duration: Duration) {
        calls.increment()
        self.duration.record(duration)
    }
}

/// The short-link event counters a thread has found, in a table indexed by the event's and the
/// platform's case numbers: a click's counter is found without a lock or a hash.
final class KnownEventCounters {
    /// `allCases` makes its array on every call.
    private static let platforms = Platform.allCases.count
    var counters = [Counter?](repeating: nil, count: LinkEvent.allCases.count * platforms)

    /// Within the table: each case number is below its enum's count (LinkEventRecorderTests).
    static func slot(_ event: LinkEvent, _ platform: Platform) -> Int {
        event.caseNumber * platforms + platform.caseNumber
    }
}

/// Only ever used on the thread that made it (``PerThread/current``).
extension KnownEventCounters: @unchecked Sendable {}
