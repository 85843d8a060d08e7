import Synchronization

/// A table per thread, each behind a lock of its own that only a reader of all of them takes
/// besides its thread. Both event loops count every answer; one shared lock would move its cache
/// line between the cores on every request (BENCHMARKS.md, "Clicks without a shared lock").
final class ThreadTables<Table: Sendable>: Sendable {
    /// One thread's table.
    final class Entry: Sendable {
        let table: Mutex<Table>

        init(_ table: sending Table) {
            self.table = Mutex(table)
        }
    }

    /// Every thread's entry: the event loops' and the router's pool, a fixed few.
    private final class Listing: Sendable {
        let entries = Mutex<[Entry]>([])

        func added(_ entry: Entry) -> Entry {
            entries.withLock { $0.append(entry) }
            return entry
        }
    }

    private let listing: Listing
    private let threads: PerThread<Entry>

    /// - Parameter empty: a new thread's table.
    init(_ empty: @escaping @Sendable () -> Table) {
        let listing = Listing()
        self.listing = listing
        threads = PerThread { listing.added(Entry(empty())) }
    }

    /// This thread's entry, listed on its first use.
    var current: Entry { threads.current }

    /// Every thread's entry so far.
    var all: [Entry] { listing.entries.withLock { $0 } }
}
