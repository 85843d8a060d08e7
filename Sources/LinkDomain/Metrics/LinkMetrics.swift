import Hummingbird
import LinkDomainCore
import LinkDomainStorage
import Prometheus
import Synchronization

/// Counters in Prometheus's text format at `/metrics`. The registry belongs to the application, not
/// to the process, so several applications (tests, replicas in one process) never share counts.
public struct LinkMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    /// Each request's count and latency, in the answering thread's own table.
    private let requests = TimedTallies<RequestMetricKey>(
        counter: MetricFamily(name: "linkdomain_http_requests_total", help: "HTTP requests by route, method and status."),
        histogram: MetricFamily(name: "linkdomain_http_request_duration_seconds", help: "Time to answer, by route."),
        buckets: LinkMetrics.latencyBuckets)
    /// Each auth backend call's count and latency, the same way.
    private let backendCalls = TimedTallies<BackendCallKey>(
        counter: MetricFamily(name: "linkdomain_backend_calls_total", help: "Auth backend calls by operation and outcome."),
        histogram: MetricFamily(name: "linkdomain_backend_call_duration_seconds", help: "Auth backend call latency by operation."),
        buckets: LinkMetrics.latencyBuckets)
    /// The event counters each thread has found, so that a click takes no shared lock to find its
    /// own; a thread's first of each asks the registry, which makes it once for all threads.
    private let threadEventCounters = PerThread { KnownEventCounters() }
    private let spentCodes = SharedCounts()

    public init() {}

    static var linkEvents: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "linkdomain", metricName: "link_events", unitName: "total", helpText: "Short-link resolutions and where they sent visitors.")
    }

    /// Counts an answer's short-link events (a click and what it led to), each as
    /// `linkdomain_link_events_total{platform="iOS",event="CLICK"}`, finding the thread's table once.
    func count(_ events: [LinkEvent], platform: Platform) {
        let known = threadEventCounters.current
        for event in events {
            let slot = KnownEventCounters.slot(event, platform)
            if let counter = known.counters[slot] {
                counter.increment()
                continue
            }
            let counter = registry.makeCounter(
                descriptor: Self.linkEvents, labels: [("platform", platform.rawValue), ("event", event.rawValue)])
            known.counters[slot] = counter
            counter.increment()
        }
    }

    /// Latency buckets from a millisecond to ten seconds.
    static let latencyBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
        .seconds(2.5), .seconds(5), .seconds(10),
    ]

    /// One answered request, by route pattern (never the raw path, which carries codes), method and status.
    func request(route: String, method: HTTPRequest.Method, status: Int, duration: Duration) {
        requests.record(RequestMetricKey(route: route, method: Self.counted(method), status: status), duration: duration)
    }

    /// The method as the metrics name it: one of RFC 9110's, or `OTHER`. An HTTP/2 request's
    /// `:method` may be any token, and a client sending a new one each time would otherwise add
    /// a metric each time, without bound.
    static func counted(_ method: HTTPRequest.Method) -> HTTPRequest.Method {
        switch method {
        case .get, .head, .post, .put, .delete, .options, .patch, .connect, .trace: method
        default: otherMethod
        }
    }

    static let otherMethod = HTTPRequest.Method("OTHER")!

    /// Every metric in Prometheus's text format: the registry's, then the requests' and the
    /// backend calls'.
    func exposition() -> [UInt8] {
        var buffer = registry.emitToBuffer()
        requests.expose(into: &buffer)
        backendCalls.expose(into: &buffer)
        return buffer
    }

    /// One call to the auth backend: which operation, and how it ended (`ok`, the refusal's code,
    /// `unreachable`, `timeout`, `invalid_response`).
    func backendCall(_ operation: String, outcome: String, duration: Duration) {
        backendCalls.record(BackendCallKey(operation: operation, outcome: outcome), duration: duration)
    }

    /// The key of one operation's outcome, for a caller that records the same one on every
    /// call and makes it once (the event loop's code checks).
    func backendCallMetrics(_ operation: String, outcome: String) -> BackendCallMetrics {
        BackendCallMetrics(key: BackendCallKey(operation: operation, outcome: outcome), tallies: backendCalls)
    }

    /// One code spent through the pages, by mode.
    /// Codes spent through the pages since start, by mode, for the console's overview (the
    /// registry's counters are for Prometheus to read, not this process).
    var codesSpent: [ActionMode: Int] { spentCodes.withLock { $0 } }

    func codeSpent(mode: ActionMode) {
        spentCodes.withLock { $0[mode, default: 0] &+= 1 }
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "linkdomain", metricName: "codes_spent", unitName: "total",
                helpText: "Action codes spent through the pages, by mode."),
            labels: [("mode", mode.rawValue)]
        ).increment()
    }
}
