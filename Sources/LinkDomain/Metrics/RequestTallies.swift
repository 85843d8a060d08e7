import HTTPTypes
import Prometheus
import Synchronization

/// Every answered request, counted by route, method and status and timed by route, in a table of
/// the answering thread's own and summed when `/metrics` is read. swift-prometheus keeps a
/// histogram under one lock and a counter in one atomic, which both event loops took on every
/// request; a thread's own table is uncontended, and finding the bucket is a few
/// comparisons (BENCHMARKS.md, "Fewer instructions a request, and no metric the loops share").
///
/// The exposition is the one the registry wrote for the same two families:
/// `linkdomain_http_requests_total{route,method,status}` and
/// `linkdomain_http_request_duration_seconds{route}` with ``LinkMetrics/latencyBuckets``.
final class RequestTallies: Sendable {
    static let requestsName = "linkdomain_http_requests_total"
    static let requestsHelp = "HTTP requests by route, method and status."
    static let durationName = "linkdomain_http_request_duration_seconds"
    static let durationHelp = "Time to answer, by route."

    /// The buckets' upper bounds, and as the exposition writes them.
    private let bounds: [Duration]
    private let boundTexts: [String]
    private let tables: ThreadTables<RequestTable>

    init(buckets: [Duration]) {
        bounds = buckets
        boundTexts = buckets.map(\.bucketRepresentation)
        let count = buckets.count
        tables = ThreadTables { RequestTable(bucketCount: count) }
    }

    func record(_ key: RequestMetricKey, duration: Duration) {
        tables.current.table.withLock { $0.record(key, duration: duration, bounds: bounds) }
    }

    /// Every thread's tallies, summed: requests by key, latency by route.
    func summed() -> (requests: [RequestMetricKey: Int], latencies: [String: Latency]) {
        var requests: [RequestMetricKey: Int] = [:]
        var latencies: [String: Latency] = [:]
        for entry in tables.all {
            entry.table.withLock { table in
                for (slot, key) in table.keys.enumerated() {
                    requests[key, default: 0] &+= table.counts[slot]
                }
                for (slot, route) in table.routes.enumerated() {
                    latencies[route, default: Latency(bucketCount: bounds.count)].add(table.latencies[slot])
                }
            }
        }
        return (requests, latencies)
    }

    /// The two families in Prometheus's text format; nothing before the first request.
    func expose(into buffer: inout [UInt8]) {
        let (requests, latencies) = summed()
        if !requests.isEmpty {
            Self.family(Self.requestsName, help: Self.requestsHelp, type: "counter", into: &buffer)
            for (key, count) in requests.sorted(by: {
                ($0.key.route, $0.key.method.rawValue, $0.key.status) < ($1.key.route, $1.key.method.rawValue, $1.key.status)
            }) {
                Self.sample(
                    Self.requestsName, labels: [("route", key.route), ("method", key.method.rawValue), ("status", String(key.status))],
                    value: String(count), into: &buffer)
            }
        }
        if !latencies.isEmpty {
            Self.family(Self.durationName, help: Self.durationHelp, type: "histogram", into: &buffer)
            for (route, latency) in latencies.sorted(by: { $0.key < $1.key }) {
                var cumulative = 0
                for (index, bound) in boundTexts.enumerated() {
                    cumulative &+= latency.buckets[index]
                    Self.sample(Self.durationName + "_bucket", labels: [("route", route), ("le", bound)], value: String(cumulative), into: &buffer)
                }
                Self.sample(Self.durationName + "_bucket", labels: [("route", route), ("le", "+Inf")], value: String(latency.count), into: &buffer)
                Self.sample(Self.durationName + "_sum", labels: [("route", route)], value: latency.sum.bucketRepresentation, into: &buffer)
                Self.sample(Self.durationName + "_count", labels: [("route", route)], value: String(latency.count), into: &buffer)
            }
        }
    }

    private static func family(_ name: String, help: String, type: String, into buffer: inout [UInt8]) {
        buffer.append(contentsOf: "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n".utf8)
    }

    private static func sample(_ name: String, labels: [(String, String)], value: String, into buffer: inout [UInt8]) {
        buffer.append(contentsOf: name.utf8)
        buffer.append(UInt8(ascii: "{"))
        for (index, (label, labelValue)) in labels.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            buffer.append(contentsOf: label.utf8)
            buffer.append(contentsOf: "=\"".utf8)
            appendEscaped(labelValue, into: &buffer)
            buffer.append(UInt8(ascii: "\""))
        }
        buffer.append(contentsOf: "} ".utf8)
        buffer.append(contentsOf: value.utf8)
        buffer.append(UInt8(ascii: "\n"))
    }

    /// A label value as the text format escapes it: backslash, double quote and line feed.
    static func appendEscaped(_ value: String, into buffer: inout [UInt8]) {
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): buffer.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\""): buffer.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\n"): buffer.append(contentsOf: #"\n"#.utf8)
            default: buffer.append(byte)
            }
        }
    }
}

/// One route's latencies: each bucket's own count (the exposition sums them up), their count and sum.
struct Latency: Sendable, Equatable {
    var buckets: [Int]
    var count = 0
    var sum = Duration.zero

    init(bucketCount: Int) {
        buckets = [Int](repeating: 0, count: bucketCount)
    }

    mutating func add(_ other: ThreadLatency) {
        for index in buckets.indices { buckets[index] &+= other.buckets[index] }
        count &+= other.count
        sum += other.sum
    }
}

/// One route's latencies on one thread. The sum is a `Duration` (attoseconds in 128 bits), as
/// the clock gives it: splitting one into seconds and a fraction costs a 128-bit division.
struct ThreadLatency: Sendable {
    var buckets: [Int]
    var count = 0
    var sum = Duration.zero

    /// Counts `duration` in the first bucket whose bound it does not exceed; past the last, only
    /// in the count (the `+Inf` bucket).
    mutating func record(_ duration: Duration, bounds: [Duration]) {
        count &+= 1
        sum += duration
        for index in bounds.indices where duration <= bounds[index] {
            buckets[index] &+= 1
            return
        }
    }
}

/// One thread's requests: a slot per key, and a latency per route, found by the thread's last
/// request before any hash (a thread answers the same route many times in a row).
struct RequestTable: Sendable {
    private(set) var keys: [RequestMetricKey] = []
    private(set) var counts: [Int] = []
    private(set) var routes: [String] = []
    private(set) var latencies: [ThreadLatency] = []
    private var routeOfKey: [Int] = []
    private var slots: [RequestMetricKey: Int] = [:]
    private var routeSlots: [String: Int] = [:]
    private var last: Int?
    private let bucketCount: Int

    init(bucketCount: Int) {
        self.bucketCount = bucketCount
    }

    mutating func record(_ key: RequestMetricKey, duration: Duration, bounds: [Duration]) {
        let slot: Int
        if let last, keys[last] == key {
            slot = last
        } else {
            slot = self.slot(for: key)
            last = slot
        }
        counts[slot] &+= 1
        latencies[routeOfKey[slot]].record(duration, bounds: bounds)
    }

    private mutating func slot(for key: RequestMetricKey) -> Int {
        if let slot = slots[key] { return slot }
        let routeSlot: Int
        if let known = routeSlots[key.route] {
            routeSlot = known
        } else {
            routeSlot = routes.count
            routes.append(key.route)
            latencies.append(ThreadLatency(buckets: [Int](repeating: 0, count: bucketCount)))
            routeSlots[key.route] = routeSlot
        }
        let slot = keys.count
        keys.append(key)
        counts.append(0)
        routeOfKey.append(routeSlot)
        slots[key] = slot
        return slot
    }
}
