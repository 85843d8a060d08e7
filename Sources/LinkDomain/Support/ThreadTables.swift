import Synchronization

/// A table per thread, each behind a lock of its own that only a reader of all of them takes
/// besides its thread. Both event loops count every answer; one shared lock would move its cache
/// line between the cores on every request (BENCHMARKS.md, "Clicks without a shared lock").
///
/// A thread that ends hands its table over: it is merged into the retired threads' table and
/// dropped from the list. Swift's own pool runs the router's tasks (the static runtime exports no
/// hook for NIO to take it over), and its threads come and go with the load: without the hand-over,
/// every new one would add a table for good.
final class ThreadTables<Table: Sendable>: Sendable {
    /// One thread's table.
    final class Entry: Sendable {
        let table: Mutex<Table>

        init(_ table: sending Table) {
            self.table = Mutex(table)
        }
    }

    /// The live threads' entries and the ended threads' table, under one lock, which a reader
    /// holds while it reads: a thread's table is never counted both in its entry and as retired,
    /// nor in neither.
    private final class Listing: Sendable {
        struct State {
            var entries: [Entry] = []
            var retired: Table
        }

        let state: Mutex<State>
        let empty: @Sendable () -> Table
        let merge: @Sendable (inout Table, Table) -> Void

        init(empty: @escaping @Sendable () -> Table, merge: @escaping @Sendable (inout Table, Table) -> Void) {
            self.empty = empty
            self.merge = merge
            state = Mutex(State(retired: empty()))
        }

        func added() -> Entry {
            let entry = Entry(empty())
            state.withLock { $0.entries.append(entry) }
            return entry
        }

        func retire(_ entry: Entry) {
            state.withLock { state in
                let table = entry.table.withLock { table in
                    defer { table = empty() }
                    return table
                }
                merge(&state.retired, table)
                state.entries.removeAll { $0 === entry }
            }
        }
    }

    /// A thread's hold on its entry, released when the thread ends (``PerThread``'s key drops its
    /// value then), which retires the entry.
    private final class Holder: Sendable {
        let entry: Entry
        let listing: Listing

        init(_ listing: Listing) {
            self.listing = listing
            entry = listing.added()
        }

        deinit { listing.retire(entry) }
    }

    private let listing: Listing
    private let threads: PerThread<Holder>

    /// - Parameters:
    ///   - empty: a new thread's table.
    ///   - merge: adds a table to another, for the tables of threads that ended.
    init(_ empty: @escaping @Sendable () -> Table, merge: @escaping @Sendable (inout Table, Table) -> Void) {
        let listing = Listing(empty: empty, merge: merge)
        self.listing = listing
        threads = PerThread { Holder(listing) }
    }

    /// This thread's entry, listed on its first use.
    var current: Entry { threads.current.entry }

    /// Reads every table: `body` gets the ended threads' table and the live threads' entries, and
    /// no thread ends (hands its table over) until it returns.
    func withAll<Result>(_ body: (inout Table, [Entry]) -> Result) -> Result {
        listing.state.withLock { state in body(&state.retired, state.entries) }
    }

    /// How many threads have a table now.
    var liveCount: Int { listing.state.withLock { $0.entries.count } }
}
