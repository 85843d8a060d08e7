import GRDBSQLite
import LinkDomainCore
import Synchronization

/// Read-only connections to the SQLite file, one per event-loop thread, through which the event
/// loop reads an out-of-band code by its key itself: the pool's reads hop to its reader queue and
/// back to the caller, which cost a reset form more than the read.
///
/// SQLite's own interface, not GRDB's: this read is every sign-in link's and every reset form's,
/// and GRDB's row (a dispatch hop per read, each column found by a case-insensitive name, its
/// value decoded through a protocol) cost ten times SQLite's step (BENCHMARKS.md, "The link's
/// own work"). The statement names its columns, so each is read by its position, and only those a
/// page needs (``OobCodeSummary``): every text column costs the step an allocation and a copy.
///
/// Nothing here waits. With every connection in use, or the file busy (SQLite's lock, a
/// checkpoint), the read answers nil and the caller takes the pool's way (``SQLiteStore/code(_:)``).
/// The read is a primary-key lookup in WAL mode: a reader never waits for the writer.
package final class SQLiteReadsWithoutWaiting: Sendable {
    private let idle: Mutex<[CodeReader]>

    package init(path: String, connections: Int) throws(StoreError) {
        var readers: [CodeReader] = []
        for _ in 0..<max(1, connections) { readers.append(try CodeReader(path: path)) }
        idle = Mutex(readers)
    }

    /// What a page needs of the code, or nil when it is not stored, no connection is free or the read failed.
    package func code(_ code: String) -> OobCodeSummary? {
        guard let reader = idle.withLock({ $0.popLast() }) else { return nil }
        defer { idle.withLock { $0.append(reader) } }
        return reader.read(code)
    }
}

/// One read-only connection and its prepared statement, used by one thread at a time: the pool's
/// lock hands it out and takes it back (hence `@unchecked Sendable`; SQLite's own mutex is off).
private final class CodeReader: @unchecked Sendable {
    private let connection: OpaquePointer
    private let statement: OpaquePointer
    /// Codes are 32 characters; anything much longer is not one, and its length must fit SQLite's Int32.
    private static let longestCode = 256
    private static let query = """
        SELECT requestType, email, newEmail, expiresAt, askedByApp FROM oobCodes WHERE code = ?
        """

    init(path: String) throws(StoreError) {
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &opened, flags, nil) == SQLITE_OK, let connection = opened else {
            defer { sqlite3_close_v2(opened) }
            throw .database("cannot open \(path) to read codes: \(Self.message(opened))")
        }
        var prepared: OpaquePointer?
        // Persistent: kept for the process's life. SQLite prepares it again by itself after a schema change.
        guard sqlite3_prepare_v3(connection, Self.query, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil) == SQLITE_OK,
            let statement = prepared
        else {
            defer { sqlite3_close_v2(connection) }
            throw .database("cannot read codes from \(path): \(Self.message(connection))")
        }
        self.connection = connection
        self.statement = statement
    }

    deinit {
        sqlite3_finalize(statement)
        sqlite3_close_v2(connection)
    }

    func read(_ code: String) -> OobCodeSummary? {
        var code = code
        guard code.utf8.count <= Self.longestCode else { return nil }
        return code.withUTF8 { bytes -> OobCodeSummary? in
            // No destructor (SQLITE_STATIC): the bytes outlive the step, and the binding is cleared after it.
            guard sqlite3_bind_text(statement, 1, bytes.baseAddress, Int32(bytes.count), nil) == SQLITE_OK else { return nil }
            defer {
                // Ends the statement's read transaction, so the WAL can be checkpointed past it.
                sqlite3_reset(statement)
                sqlite3_clear_bindings(statement)
            }
            guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
            return summary()
        }
    }

    /// The current row, its columns in the query's order.
    private func summary() -> OobCodeSummary? {
        guard let requestType = requestType(), let email = text(1),
            sqlite3_column_type(statement, 3) == SQLITE_INTEGER
        else { return nil }
        let askedByApp: Bool? = sqlite3_column_type(statement, 4) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, 4) != 0
        return OobCodeSummary(
            requestType: requestType, email: email, newEmail: text(2), expiresAt: sqlite3_column_int64(statement, 3),
            askedByApp: askedByApp)
    }

    /// The first column's request type, matched on its bytes: making a string of it to match cost
    /// a sign-in link's read 435 instructions more, about a tenth of SQLite's step.
    private func requestType() -> OobRequestType? {
        guard sqlite3_column_type(statement, 0) == SQLITE_TEXT, let text = sqlite3_column_text(statement, 0) else { return nil }
        let value = UnsafeRawBufferPointer(start: text, count: Int(sqlite3_column_bytes(statement, 0)))
        for (bytes, type) in Self.requestTypes where bytes.count == value.count {
            if bytes.withUnsafeBytes({ $0.elementsEqual(value) }) { return type }
        }
        return nil
    }

    private static let requestTypes = OobRequestType.allCases.map { (bytes: Array($0.rawValue.utf8), type: $0) }

    /// A text column's value; nil for NULL (or a value of another type).
    private func text(_ column: Int32) -> String? {
        guard sqlite3_column_type(statement, column) == SQLITE_TEXT, let bytes = sqlite3_column_text(statement, column) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    private static func message(_ connection: OpaquePointer?) -> String {
        guard let connection, let message = sqlite3_errmsg(connection) else { return "SQLite could not allocate a connection" }
        return String(cString: message)
    }
}

extension SQLiteStore {
    public func codeWithoutWaiting(_ code: String) -> OobCodeSummary? {
        readsWithoutWaiting.code(code)
    }
}
