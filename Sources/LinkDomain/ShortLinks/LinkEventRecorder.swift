import LinkDomainCore
import LinkDomainStorage
import Logging
import ServiceLifecycle
import Synchronization

/// Counts short-link events in memory and adds them to the store in batches, once a second and
/// at shutdown: a click is answered without waiting on a database write, and a burst of clicks on
/// one link costs one row update, not one per click.
///
/// Each thread counts under a lock of its own, which only a flush takes besides it: the event
/// loops' threads answer clicks side by side, and one shared lock (its cache line crossing
/// between cores on every click) cost a short link's click more than the counting
/// (BENCHMARKS.md, "Clicks without a shared lock").
///
/// Nothing is lost: counts a failed write could not store are kept for the next one, and the
/// statistics API flushes before it reads. Until a flush, other replicas do not see this one's
/// latest counts (at most a second behind while the service runs).
final class LinkEventRecorder: Service, Sendable {
    /// A link's visitors of one platform on one day; the value counts each event by its
    /// ``LinkEvent/caseNumber``, so an answer's events (a click and what it led to) are one lookup.
    fileprivate struct Key: Hashable {
        let suffix: String
        let day: Int
        let platform: Platform
    }
    fileprivate typealias Counts = [Key: [Int]]
    fileprivate static let noEvents = [Int](repeating: 0, count: LinkEvent.allCases.count)

    /// One thread's counts, and where its last key's are: a link's clicks come in a row, and
    /// finding their entry again by its place costs a comparison of the key instead of its hash.
    fileprivate struct ThreadCounts: Sendable {
        private(set) var table: Counts = [:]
        private var last: (key: Key, index: Counts.Index)?

        mutating func add(_ events: [LinkEvent], for key: Key) {
            let index: Counts.Index
            if let last, last.key == key {
                index = last.index
            } else if let found = table.index(forKey: key) {
                index = found
            } else {
                // A key new to the table: one hash to insert it. An insertion may move every
                // entry, so no place is kept; the key's next count finds it.
                var counts = LinkEventRecorder.noEvents
                for event in events { counts[event.caseNumber] &+= 1 }
                table[key] = counts
                last = nil
                return
            }
            last = (key, index)
            for event in events { table.values[index][event.caseNumber] &+= 1 }
        }

        /// Everything counted, taken: the thread counts from nothing again.
        mutating func take() -> Counts {
            last = nil
            defer { table = [:] }
            return table
        }

        static func merge(_ counts: ThreadCounts, into total: inout ThreadCounts) {
            LinkEventRecorder.merge(counts.table, into: &total.table)
            total.last = nil
        }
    }

    let store: any LinkStore
    let interval: Duration
    let logger: Logger
    let clock: any WallClock
    /// The same events as counters at `/metrics`.
    let metrics: LinkMetrics
    /// Every thread's counts since the last flush.
    private let threadCounts = ThreadTables<ThreadCounts>({ ThreadCounts() }, merge: { ThreadCounts.merge($1, into: &$0) })
    /// Counts a failed write could not store, for the next flush.
    private let carried = Mutex<Counts>([:])
    /// The latest flush: each flush waits for the one before, so a flush that returns has stored
    /// every event counted before it was asked for.
    private let lastFlush = Mutex<Task<Void, Never>?>(nil)
    /// The flush runs only while the server serves anyone (a click wakes it, too).
    let activity: ServerActivity

    init(
        store: any LinkStore, interval: Duration = .seconds(1), clock: any WallClock = SystemClock(), metrics: LinkMetrics = LinkMetrics(),
        activity: ServerActivity = .shared, logger: Logger
    ) {
        self.store = store
        self.activity = activity
        self.metrics = metrics
        self.interval = interval
        self.clock = clock
        self.logger = logger
    }

    /// Counts what one answer to a short link counted (``LinkAnswer/events``), here and in the metrics.
    func record(_ events: [LinkEvent], suffix: String, platform: Platform) {
        guard !events.isEmpty else { return }
        metrics.count(events, platform: platform)
        count(events, suffix: suffix, platform: platform)
    }

    /// Counts one event on `day` (days since 1970, UTC; today when not given).
    func count(_ event: LinkEvent, suffix: String, platform: Platform, day: Int? = nil) {
        count([event], suffix: suffix, platform: platform, day: day)
    }

    /// One clock reading and one lock for all of an answer's events (a click and what it led to).
    private func count(_ events: [LinkEvent], suffix: String, platform: Platform, day: Int? = nil) {
        let day = day ?? LinkStatistics.day(ofMilliseconds: clock.nowMilliseconds())
        threadCounts.current.table.withLock { counts in
            // One access to the entry for all the events: no hash of the key when it is the last one's.
            counts.add(events, for: Key(suffix: suffix, day: day, platform: platform))
        }
        activity.markIfWaiting()
    }

    /// Stores every event counted so far.
    func flush() async {
        let flush = lastFlush.withLock { last in
            let previous = last
            let next = Task {
                await previous?.value
                await self.storePending()
            }
            last = next
            return next
        }
        await flush.value
    }

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            // A quiet server counts no clicks: nothing to flush until it serves again.
            await cancelWhenGracefulShutdown { await self.activity.waitUntilActive() }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
            await flush()
        }
        await flush()
        let lost = takeAll().values.joined().reduce(0, &+)
        if lost > 0 { logger.error("link events not recorded at shutdown", metadata: ["events": .stringConvertible(lost)]) }
    }

    private func storePending() async {
        let taken = takeAll()
        guard !taken.isEmpty else { return }
        let tallies = taken.flatMap { key, counts in
            LinkEvent.allCases.compactMap { event in
                counts[event.caseNumber] == 0
                    ? nil : LinkEventTally(suffix: key.suffix, day: key.day, platform: key.platform, event: event, count: counts[event.caseNumber])
            }
        }
        do {
            try await store.recordEvents(tallies)
        } catch {
            // Statistics never stand between a visitor and their link; the counts wait for the next flush.
            logger.warning(
                "link events not recorded yet; kept for the next attempt",
                metadata: ["events": .stringConvertible(tallies.count), "error": .string("\(error)")])
            carried.withLock { Self.merge(taken, into: &$0) }
        }
    }

    /// Everything counted and not yet stored, taken: the carried counts and each thread's.
    private func takeAll() -> Counts {
        var taken = carried.withLock { carried in
            defer { carried = [:] }
            return carried
        }
        threadCounts.withAll { retired, entries in
            Self.merge(retired.take(), into: &taken)
            for entry in entries {
                Self.merge(entry.table.withLock { $0.take() }, into: &taken)
            }
        }
        return taken
    }

    fileprivate static func merge(_ counts: Counts, into total: inout Counts) {
        if total.isEmpty {
            total = counts
            return
        }
        total.merge(counts) { zip($0, $1).map(&+) }
    }
}
