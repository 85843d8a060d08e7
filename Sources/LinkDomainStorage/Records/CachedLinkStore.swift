import LinkDomainCore
import Synchronization

/// Keeps the short links this replica has resolved in memory: a link's long link never changes
/// once made (imports skip suffixes that exist), so a popular link costs one database read, not
/// one per click. Misses are not kept, as another replica may create the link a moment later. A
/// link disabled or deleted is forgotten: at once here, within a second on the other replicas
/// (``ShortLinkChangeWatcher``).
package final class CachedLinkStore: LinkStore {
    package let base: any LinkStore
    /// Bounds memory; the cache starts over when it is full.
    package let capacity: Int
    private let records = Mutex<(links: [String: ShortLinkRecord], isPaused: Bool)>(([:], false))
    /// ``generation``: changed only under `records`' lock, read with or without it.
    private let forgottenCount = Atomic<UInt64>(0)

    package init(base: any LinkStore, capacity: Int = 10_000) {
        self.base = base
        self.capacity = capacity
    }

    /// The link, if this replica has resolved it before: no I/O, so the event loop can ask.
    package func cached(suffix: String) -> ShortLinkRecord? {
        records.withLock { $0.links[suffix] }
    }

    /// How many times links were forgotten: a copy of a cached link made at one generation is
    /// still the link while the generation is the same. Read before the copy is made, it lets a
    /// thread keep what it decided from a link and use it without this store's lock, which the
    /// event loops' threads would otherwise share on every click.
    package var generation: UInt64 {
        forgottenCount.load(ordering: .acquiring)
    }

    package func shortLink(suffix: String) async throws(StoreError) -> ShortLinkRecord? {
        if let cached = cached(suffix: suffix) { return cached }
        let forgotten = generation
        guard let record = try await base.shortLink(suffix: suffix) else { return nil }
        records.withLock { records in
            // A link forgotten while it was read may have been read as it was before: keep nothing.
            guard generation == forgotten, !records.isPaused else { return }
            if records.links.count >= capacity { records.links.removeAll(keepingCapacity: true) }
            records.links[suffix] = record
        }
        return record
    }

    /// Drops `suffixes`: they were disabled, enabled or deleted.
    package func forget(_ suffixes: some Sequence<String>) {
        records.withLock { records in
            for suffix in suffixes { records.links[suffix] = nil }
            forgottenCount.wrappingAdd(1, ordering: .releasing)
        }
    }

    /// Forgets every link and keeps none until ``resume()``: nobody watches for changes meanwhile.
    package func pause() {
        records.withLock { records in
            records.links.removeAll()
            forgottenCount.wrappingAdd(1, ordering: .releasing)
            records.isPaused = true
        }
    }

    /// Keeps links again: changes are watched from now on.
    package func resume() {
        records.withLock { $0.isPaused = false }
    }

    package func insertShortLink(_ link: ShortLinkRecord) async throws(StoreError) {
        try await base.insertShortLink(link)
    }

    package func recordEvents(_ tallies: [LinkEventTally]) async throws(StoreError) {
        try await base.recordEvents(tallies)
    }

    package func eventCounts(suffix: String, fromDay: Int) async throws(StoreError) -> [LinkEventCount] {
        try await base.eventCounts(suffix: suffix, fromDay: fromDay)
    }

    package func claimHandoff(id: String, now: Int64, keepUntil: Int64) async throws(StoreError) -> Bool {
        try await base.claimHandoff(id: id, now: now, keepUntil: keepUntil)
    }
}
