import HTTPTypes
import LinkDomainCore
import LinkDomainStorage
import Prometheus
import Synchronization

/// A request's labels: its route pattern, method and status; timed by route.
struct RequestMetricKey: TallyKey {
    let route: String
    let method: HTTPRequest.Method
    let status: Int

    static let groupLabel = "route"
    var group: String { route }
    var labels: [(String, String)] { [("route", route), ("method", method.rawValue), ("status", String(status))] }
}

/// Counts by action mode behind a lock, shared by the copies of ``LinkMetrics``.
final class SharedCounts: Sendable {
    private let counts = Mutex<[ActionMode: Int]>([:])

    func withLock<T>(_ body: (inout [ActionMode: Int]) -> T) -> T { counts.withLock { body(&$0) } }
}

/// A backend call's labels: the operation and how it ended (known codes only, so the set is
/// bounded); timed by operation.
struct BackendCallKey: TallyKey {
    let operation: String
    let outcome: String

    static let groupLabel = "operation"
    var group: String { operation }
    var labels: [(String, String)] { [("operation", operation), ("outcome", outcome)] }
}

/// One backend operation's outcome, for a caller that records it on every call.
struct BackendCallMetrics: Sendable {
    let key: BackendCallKey
    let tallies: TimedTallies<BackendCallKey>

    func record(_ duration: Duration) {
        tallies.record(key, duration: duration)
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
