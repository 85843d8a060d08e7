import GRDB
import LinkDomainCore

extension SQLiteStore {
    /// Less free space than this where the database is, and the probe calls it full: SQLite would
    /// soon refuse writes (`SQLITE_FULL`), which are then answered 503 until space returns.
    package static let fullBelowBytes: UInt64 = 1 << 20

    /// The probe's question: the file answers a read, and its disk has room for writes.
    public func ping() async throws(StoreError) {
        _ = try await read { db in try Int.fetchOne(db, sql: "SELECT 1") }
        if let free = FreeSpace.bytes(at: pool.path), free < Self.fullBelowBytes {
            throw .database("disk full: \(free / 1024) KiB free where the database is")
        }
    }
}
