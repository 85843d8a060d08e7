import HTTPTypes
import Prometheus
import Synchronization

/// What a timed event is counted by, and the one label its latency is grouped by.
protocol TallyKey: Hashable, Sendable {
    /// The latency histogram's label (`route`, `operation`).
    static var groupLabel: String { get }
    /// This event's value of ``groupLabel``.
    var group: String { get }
    /// The counter's labels, in the exposition's order.
    var labels: [(String, String)] { get }
}

/// A metric family's name and help text, as the exposition writes them.
struct MetricFamily: Sendable {
    let name: String
    let help: String

    /// A label value as the text format escapes it: backslash, double quote and line feed (a
    /// help text: backslash and line feed).
    static func appendEscaped(_ value: String, quotes: Bool = true, into buffer: inout [UInt8]) {
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): buffer.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\"") where quotes: buffer.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\n"): buffer.append(contentsOf: #"\n"#.utf8)
            default: buffer.append(byte)
            }
        }
    }
}

/// Timed events (answered requests, auth backend calls), counted by their key and timed by its
/// group, in a table of the recording thread's own and summed when `/metrics` is read.
/// swift-prometheus keeps a histogram under one lock and a counter in one atomic, which both
/// event loops took on every request; a thread's own table is uncontended, and finding the
/// bucket is a few comparisons (BENCHMARKS.md, "Fewer instructions a request, and no metric the
/// loops share").
///
/// The exposition is the one the registry wrote for the same two families: a counter with the
/// key's labels and a histogram by its group, with ``LinkMetrics/latencyBuckets``.
final class TimedTallies<Key: TallyKey>: Sendable {
    let counter: MetricFamily
    let histogram: MetricFamily
    /// The buckets' upper bounds, and as the exposition writes them.
    private let bounds: [Duration]
    private let boundTexts: [String]
    private let tables: ThreadTables<TallyTable<Key>>

    init(counter: MetricFamily, histogram: MetricFamily, buckets: [Duration]) {
        self.counter = counter
        self.histogram = histogram
        bounds = buckets
        boundTexts = buckets.map(\.bucketRepresentation)
        let count = buckets.count
        tables = ThreadTables({ TallyTable(bucketCount: count) }, merge: { $0.merge($1) })
    }

    func record(_ key: Key, duration: Duration) {
        tables.current.table.withLock { $0.record(key, duration: duration, bounds: bounds) }
    }

    /// Every thread's tallies in one table, merged as an ended thread's are. Each live thread's
    /// table is copied under its lock and merged after, so a scrape holds no event loop's lock
    /// while it hashes.
    func summed() -> TallyTable<Key> {
        var (total, live) = tables.withAll { retired, entries in (retired, entries.map { entry in entry.table.withLock { $0 } }) }
        for table in live { total.merge(table) }
        return total
    }

    /// The two families in Prometheus's text format; nothing before the first event.
    func expose(into buffer: inout [UInt8]) {
        let total = summed()
        if !total.keys.isEmpty {
            Self.family(counter, type: "counter", into: &buffer)
            let sorted = zip(total.keys.map(\.labels), total.counts).sorted { $0.0.map(\.1).lexicographicallyPrecedes($1.0.map(\.1)) }
            for (labels, count) in sorted {
                Self.sample(counter.name, labels: labels, value: String(count), into: &buffer)
            }
        }
        if !total.groups.isEmpty {
            Self.family(histogram, type: "histogram", into: &buffer)
            let name = histogram.name
            for (group, latency) in zip(total.groups, total.latencies).sorted(by: { $0.0 < $1.0 }) {
                let label = (Key.groupLabel, group)
                var cumulative = 0
                for (index, bound) in boundTexts.enumerated() {
                    cumulative &+= latency.buckets[index]
                    Self.sample(name + "_bucket", labels: [label, ("le", bound)], value: String(cumulative), into: &buffer)
                }
                Self.sample(name + "_bucket", labels: [label, ("le", "+Inf")], value: String(latency.count), into: &buffer)
                Self.sample(name + "_sum", labels: [label], value: latency.sum.bucketRepresentation, into: &buffer)
                Self.sample(name + "_count", labels: [label], value: String(latency.count), into: &buffer)
            }
        }
    }

    private static func family(_ family: MetricFamily, type: String, into buffer: inout [UInt8]) {
        buffer.append(contentsOf: "# HELP \(family.name) ".utf8)
        MetricFamily.appendEscaped(family.help, quotes: false, into: &buffer)
        buffer.append(contentsOf: "\n# TYPE \(family.name) \(type)\n".utf8)
    }

    private static func sample(_ name: String, labels: [(String, String)], value: String, into buffer: inout [UInt8]) {
        buffer.append(contentsOf: name.utf8)
        buffer.append(UInt8(ascii: "{"))
        for (index, (label, labelValue)) in labels.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            buffer.append(contentsOf: label.utf8)
            buffer.append(contentsOf: "=\"".utf8)
            MetricFamily.appendEscaped(labelValue, into: &buffer)
            buffer.append(UInt8(ascii: "\""))
        }
        buffer.append(contentsOf: "} ".utf8)
        buffer.append(contentsOf: value.utf8)
        buffer.append(UInt8(ascii: "\n"))
    }
}

/// One group's latencies: each bucket's own count (the exposition sums them up), their count
/// and their sum. The sum is a `Duration` (attoseconds in 128 bits), as the clock gives it:
/// splitting one into seconds and a fraction costs a 128-bit division.
struct Latency: Sendable {
    var buckets: [Int]
    var count = 0
    var sum = Duration.zero

    init(bucketCount: Int) {
        buckets = [Int](repeating: 0, count: bucketCount)
    }

    mutating func add(_ other: Latency) {
        for index in buckets.indices { buckets[index] &+= other.buckets[index] }
        count &+= other.count
        sum += other.sum
    }

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

/// One thread's events: a slot per key, and a latency per group, found by the thread's last
/// event before any hash (a thread answers the same route many times in a row).
struct TallyTable<Key: TallyKey>: Sendable {
    private(set) var keys: [Key] = []
    private(set) var counts: [Int] = []
    private(set) var groups: [String] = []
    private(set) var latencies: [Latency] = []
    private var groupOfKey: [Int] = []
    private var slots: [Key: Int] = [:]
    private var groupSlots: [String: Int] = [:]
    private var last: Int?
    private let bucketCount: Int

    init(bucketCount: Int) {
        self.bucketCount = bucketCount
    }

    mutating func record(_ key: Key, duration: Duration, bounds: [Duration]) {
        let slot: Int
        if let last, keys[last] == key {
            slot = last
        } else {
            slot = self.slot(for: key)
            last = slot
        }
        counts[slot] &+= 1
        latencies[groupOfKey[slot]].record(duration, bounds: bounds)
    }

    /// Adds another thread's table to this one (one that ended, or each live one for a scrape).
    mutating func merge(_ other: TallyTable) {
        for (otherSlot, key) in other.keys.enumerated() {
            let slot = slot(for: key)
            counts[slot] &+= other.counts[otherSlot]
        }
        // Every group of the other table came with one of its keys, so it has a slot here now.
        for (otherSlot, group) in other.groups.enumerated() {
            if let groupSlot = groupSlots[group] { latencies[groupSlot].add(other.latencies[otherSlot]) }
        }
    }

    private mutating func slot(for key: Key) -> Int {
        if let slot = slots[key] { return slot }
        let group = key.group
        let groupSlot: Int
        if let known = groupSlots[group] {
            groupSlot = known
        } else {
            groupSlot = groups.count
            groups.append(group)
            latencies.append(Latency(bucketCount: bucketCount))
            groupSlots[group] = groupSlot
        }
        let slot = keys.count
        keys.append(key)
        counts.append(0)
        groupOfKey.append(groupSlot)
        slots[key] = slot
        return slot
    }
}
