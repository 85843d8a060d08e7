import Logging
import NIOCore
import NIOPosix
import Prometheus
import ServiceLifecycle
import Synchronization
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

/// A store that refuses event writes while `down` is set, records each batch it is given, and
/// counts the short-link reads that reach it.
final class FlakyLinkStore: LinkStore {
    let base: any LinkStore
    let down = Mutex(false)
    let batches = Mutex<[[LinkEventTally]]>([])
    let reads = Mutex(0)

    init(base: any LinkStore) { self.base = base }

    func insertShortLink(_ link: ShortLinkRecord) async throws(StoreError) { try await base.insertShortLink(link) }
    func shortLink(suffix: String) async throws(StoreError) -> ShortLinkRecord? {
        reads.withLock { $0 += 1 }
        return try await base.shortLink(suffix: suffix)
    }
    func eventCounts(suffix: String, fromDay: Int) async throws(StoreError) -> [LinkEventCount] {
        try await base.eventCounts(suffix: suffix, fromDay: fromDay)
    }
    func claimHandoff(id: String, now: Int64, keepUntil: Int64) async throws(StoreError) -> Bool {
        try await base.claimHandoff(id: id, now: now, keepUntil: keepUntil)
    }
    func recordEvents(_ tallies: [LinkEventTally]) async throws(StoreError) {
        if down.withLock({ $0 }) { throw .database("down for the test") }
        batches.withLock { $0.append(tallies) }
        try await base.recordEvents(tallies)
    }
}

@Suite("Short-link statistics: counted in memory, stored in batches")
struct LinkEventRecorderTests {
    static let day = 20_000

    @Test("a burst of clicks is one row update per link, platform and event; a flush stores everything counted before it")
    func batches() async throws {
        try await StoreKind.sqlite.withStore { (base) async throws in
            let store = FlakyLinkStore(base: base)
            let recorder = LinkEventRecorder(store: store, logger: Logger(label: "test"))
            for _ in 0..<500 { recorder.count(.click, suffix: "a", platform: .iOS, day: Self.day) }
            for _ in 0..<3 { recorder.count(.click, suffix: "a", platform: .android, day: Self.day) }
            recorder.count(.redirectToApp, suffix: "b", platform: .iOS, day: Self.day)
            #expect(try await base.eventCounts(suffix: "a", fromDay: Self.day).isEmpty)
            await recorder.flush()
            #expect(store.batches.withLock { $0.map(\.count) } == [3])
            #expect(
                try await base.eventCounts(suffix: "a", fromDay: Self.day) == [
                    LinkEventCount(platform: .android, event: .click, count: 3), LinkEventCount(platform: .iOS, event: .click, count: 500),
                ])
            #expect(try await base.eventCounts(suffix: "b", fromDay: Self.day) == [LinkEventCount(platform: .iOS, event: .redirectToApp, count: 1)])
            await recorder.flush()  // nothing new: no write at all
            #expect(store.batches.withLock { $0.count } == 1)
        }
    }

    @Test("clicks in a row and clicks among others count the same, while new links grow the thread's table between them")
    func inARowAndAmongOthers() async throws {
        try await StoreKind.sqlite.withStore { (base) async throws in
            let recorder = LinkEventRecorder(store: base, logger: Logger(label: "test"))
            var expected: [String: Int] = [:]
            // Each round: the same link twice in a row, a link never seen (the table grows), the first again.
            for round in 0..<200 {
                let new = "n\(round)"
                for suffix in ["a", "a", new, "a", new] {
                    recorder.count(.click, suffix: suffix, platform: .iOS, day: Self.day)
                    expected[suffix, default: 0] += 1
                }
                if round == 100 { await recorder.flush() }  // a flush between clicks: counting starts afresh
            }
            await recorder.flush()
            for (suffix, count) in expected {
                #expect(try await base.eventCounts(suffix: suffix, fromDay: Self.day) == [LinkEventCount(platform: .iOS, event: .click, count: count)])
            }
        }
    }

    @Test("while the store is down, counts are kept and stored by the first flush after it returns")
    func storeDown() async throws {
        try await StoreKind.sqlite.withStore { (base) async throws in
            let store = FlakyLinkStore(base: base)
            let recorder = LinkEventRecorder(store: store, logger: Logger(label: "test"))
            store.down.withLock { $0 = true }
            for _ in 0..<7 { recorder.count(.click, suffix: "c", platform: .desktop, day: Self.day) }
            recorder.count(.redirectToFallback, suffix: "c", platform: .desktop, day: Self.day)
            await recorder.flush()
            recorder.count(.click, suffix: "c", platform: .desktop, day: Self.day)
            recorder.count(.redirectToFallback, suffix: "c", platform: .desktop, day: Self.day)
            await recorder.flush()
            #expect(try await base.eventCounts(suffix: "c", fromDay: Self.day).isEmpty)
            store.down.withLock { $0 = false }
            await recorder.flush()
            #expect(
                try await base.eventCounts(suffix: "c", fromDay: Self.day).sorted { $0.event.rawValue < $1.event.rawValue } == [
                    LinkEventCount(platform: .desktop, event: .click, count: 8),
                    LinkEventCount(platform: .desktop, event: .redirectToFallback, count: 2),
                ])
        }
    }

    @Test("an answer's events are each counted once, for its link and platform, here and in the metrics")
    func answerEvents() async throws {
        try await StoreKind.sqlite.withStore { (base) async throws in
            let metrics = LinkMetrics()
            let recorder = LinkEventRecorder(store: base, metrics: metrics, logger: Logger(label: "test"))
            for _ in 0..<3 { recorder.record([.click, .redirectToFallback], suffix: "d", platform: .desktop) }
            recorder.record([.click, .redirectToApp], suffix: "d", platform: .iOS)
            recorder.record([], suffix: "d", platform: .bot)
            await recorder.flush()
            let counts = try await base.eventCounts(suffix: "d", fromDay: 0)
            #expect(
                counts.sorted { ($0.platform.rawValue, $0.event.rawValue) < ($1.platform.rawValue, $1.event.rawValue) } == [
                    LinkEventCount(platform: .desktop, event: .click, count: 3), LinkEventCount(platform: .desktop, event: .redirectToFallback, count: 3),
                    LinkEventCount(platform: .iOS, event: .click, count: 1), LinkEventCount(platform: .iOS, event: .redirectToApp, count: 1),
                ])
            let text = metrics.registry.emitToString()
            #expect(text.contains(#"linkdomain_link_events_total{platform="desktop",event="REDIRECT_TO_FALLBACK"} 3"#))
            #expect(text.contains(#"linkdomain_link_events_total{platform="iOS",event="CLICK"} 1"#))
        }
    }

    @Test("an event's and a platform's case numbers are their places in allCases (the tallies index by them)")
    func caseNumbers() {
        #expect(LinkEvent.allCases.map(\.caseNumber) == Array(LinkEvent.allCases.indices))
        #expect(Platform.allCases.map(\.caseNumber) == Array(Platform.allCases.indices))
        #expect(Set(Platform.allCases).count == Platform.allCases.count)
        #expect(Set(InAppBrowser.allCases).count == InAppBrowser.allCases.count)
        #expect(Platform.iOS != .iPadOS && Platform.iOS == Platform(rawValue: "iOS"))
        // Hashed as the case number, not as the raw string: what a table lookup costs.
        for platform in Platform.allCases { #expect(platform.hashValue == platform.caseNumber.hashValue) }
        for event in LinkEvent.allCases { #expect(event.hashValue == event.caseNumber.hashValue) }
        #expect(Visitor(platform: .iOS, inAppBrowser: .gmail) != Visitor(platform: .iOS, inAppBrowser: .outlook))
        // The metrics' per-thread table of event counters: one slot for each event and platform.
        let slots = LinkEvent.allCases.flatMap { event in Platform.allCases.map { KnownEventCounters.slot(event, $0) } }
        #expect(Set(slots).count == slots.count && slots.allSatisfy { $0 >= 0 && $0 < KnownEventCounters().counters.count })
    }

    @Test("concurrent counting and flushing store every event exactly once")
    func concurrent() async throws {
        try await StoreKind.sqlite.withStore { (base) async throws in
            let recorder = LinkEventRecorder(store: base, logger: Logger(label: "test"))
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for click in 0..<250 {
                            recorder.count(.click, suffix: "d", platform: .iOS, day: Self.day)
                            if click % 50 == worker { await recorder.flush() }
                        }
                    }
                }
            }
            await recorder.flush()
            #expect(try await base.eventCounts(suffix: "d", fromDay: Self.day) == [LinkEventCount(platform: .iOS, event: .click, count: 2000)])
        }
    }

    @Test("each event loop counts apart; a flush takes every thread's counts, a failed one keeps them all for the next")
    func threadsApart() async throws {
        try await StoreKind.sqlite.withStore { (base) async throws in
            let store = FlakyLinkStore(base: base)
            let recorder = LinkEventRecorder(store: store, logger: Logger(label: "test"))
            let loops = MultiThreadedEventLoopGroup(numberOfThreads: 3)
            // `count` clicks on each loop's thread, each loop counting a platform of its own.
            func clicks(_ count: Int) async throws {
                for (loop, platform) in zip(loops.makeIterator(), [Platform.iOS, .android, .desktop]) {
                    try await loop.submit {
                        for _ in 0..<count { recorder.count(.click, suffix: "t", platform: platform, day: Self.day) }
                    }.get()
                }
            }
            try await clicks(4)
            store.down.withLock { $0 = true }
            await recorder.flush()
            store.down.withLock { $0 = false }
            try await clicks(1)
            await recorder.flush()
            try await loops.shutdownGracefully()
            #expect(
                try await base.eventCounts(suffix: "t", fromDay: Self.day) == [
                    LinkEventCount(platform: .android, event: .click, count: 5), LinkEventCount(platform: .desktop, event: .click, count: 5),
                    LinkEventCount(platform: .iOS, event: .click, count: 5),
                ])
            #expect(store.batches.withLock { $0.map(\.count) } == [3])
        }
    }

    @Test("graceful shutdown stores what was counted since the last flush")
    func shutdown() async throws {
        try await StoreKind.sqlite.withStore { (base) async throws in
            // An hour between flushes: only the shutdown can store these.
            let recorder = LinkEventRecorder(store: base, interval: .seconds(3600), logger: Logger(label: "test"))
            let group = ServiceGroup(configuration: .init(services: [recorder], logger: Logger(label: "test")))
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                for _ in 0..<5 { recorder.count(.redirectToStore, suffix: "e", platform: .android, day: Self.day) }
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
            }
            #expect(try await base.eventCounts(suffix: "e", fromDay: Self.day) == [LinkEventCount(platform: .android, event: .redirectToStore, count: 5)])
        }
    }
}
