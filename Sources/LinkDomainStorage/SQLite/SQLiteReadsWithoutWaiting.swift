import Foundation
import GRDB
import LinkDomainCore
import Synchronization

/// Read-only connections to the SQLite file, one per event-loop thread, through which the event
/// loop reads one row by its key itself: the pool's reads hop to its reader queue and back to
/// the caller, which cost a reset form more than the read.
///
/// Nothing here waits. With every connection in use, or the file busy (SQLite's lock, a
/// checkpoint), the read answers nil and the caller takes the pool's way (``SQLiteStore/code(_:)``).
/// The read is a primary-key lookup in WAL mode: a reader never waits for the writer.
package final class SQLiteReadsWithoutWaiting: Sendable {
    private let idle: Mutex<[DatabaseQueue]>

    package init(path: String, connections: Int) throws {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .immediateError
        idle = Mutex(try (0..<max(1, connections)).map { _ in try DatabaseQueue(path: path, configuration: configuration) })
    }

    /// `body`'s value, or nil when no connection is free or the read failed. `body` makes one
    /// statement, which SQLite runs in a read transaction of its own: no BEGIN and COMMIT around it.
    package func read<T>(_ body: (Database) throws -> T) -> T? {
        guard let connection = idle.withLock({ $0.popLast() }) else { return nil }
        defer { idle.withLock { $0.append(connection) } }
        return try? connection.unsafeRead(body)
    }
}

extension SQLiteStore {
    public func codeWithoutWaiting(_ code: String) -> OobCodeRecord? {
        readsWithoutWaiting.read { db in
            // The columns read by name, not through Codable: this read is every reset form's.
            try Row.fetchOne(db.cachedStatement(sql: Self.codeQuery), arguments: [code]).flatMap { row -> OobCodeRecord? in
                guard let requestType = OobRequestType(rawValue: row["requestType"]) else { return nil }
                return OobCodeRecord(
                    code: row["code"], projectID: row["projectID"], tenantID: row["tenantID"], requestType: requestType,
                    email: row["email"], newEmail: row["newEmail"], localID: row["localID"], link: row["link"],
                    createdAt: row["createdAt"], expiresAt: row["expiresAt"], askedByApp: row["askedByApp"])
            }
        } ?? nil
    }
}
