import NIOCore
import NIOPosix
import Synchronization
import Testing

@testable import LinkDomain

/// Threads come and go (Swift's own pool runs the router's tasks): a thread that ends hands its
/// table over, so the list stays as long as the live threads and nothing is lost or counted twice.
@Suite("Support: a table per thread")
struct ThreadTablesTests {
    @Test("a thread that ends hands its table over: counted once, and no longer listed")
    func endedThreads() async throws {
        let tables = ThreadTables<[String: Int]>({ [:] }, merge: { $0.merge($1, uniquingKeysWith: +) })
        func total() -> Int {
            tables.withAll { retired, entries in
                retired["a", default: 0] + entries.map { entry in entry.table.withLock { $0["a", default: 0] } }.reduce(0, +)
            }
        }
        for round in 1...3 {
            let loops = MultiThreadedEventLoopGroup(numberOfThreads: 2)
            for loop in loops.makeIterator() {
                try await loop.submit { tables.current.table.withLock { $0["a", default: 0] += 5 } }.get()
            }
            #expect(tables.liveCount == 2)
            #expect(total() == 10 * round)
            try await loops.shutdownGracefully()
            #expect(tables.liveCount == 0, "round \(round)")
            #expect(total() == 10 * round)
        }
    }
}
