import Foundation
import GRDB
import LinkDomainCore

/// ``AuthStore`` and ``LinkStore`` on a SQLite file: WAL mode (readers never wait for the writer),
/// schema migrations applied on open, the file created on first run.
public final class SQLiteStore: AuthStore, LinkStore {
    package let pool: DatabasePool
    package let readsWithoutWaiting: SQLiteReadsWithoutWaiting

    /// Opens (creating if needed) the database at `path` and migrates it to the current schema.
    public init(path: String) throws(StoreError) {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .database("cannot open \(path): its directory \(directory.path) does not exist and cannot be created")
        }
        do {
            var configuration = Configuration()
            configuration.busyMode = .timeout(10)
            pool = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(pool)
            readsWithoutWaiting = try SQLiteReadsWithoutWaiting(path: path, connections: ProcessInfo.processInfo.activeProcessorCount)
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw .database("cannot open \(path): \(error.message ?? "SQLite error \(error.resultCode.rawValue)")")
        } catch {
            throw .database("cannot open \(path): \(type(of: error))")
        }
    }

    public func insertShortLink(_ link: ShortLinkRecord) async throws(StoreError) {
        try await write { db in try link.insert(db) }
    }

    public func shortLink(suffix: String) async throws(StoreError) -> ShortLinkRecord? {
        // A disabled link is served as none.
        try await read { db in try ShortLinkRecord.fetchOne(db, sql: "SELECT * FROM shortLinks WHERE suffix = ? AND disabled = 0", arguments: [suffix]) }
    }

    public func claimHandoff(id: String, now: Int64, keepUntil: Int64) async throws(StoreError) -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM handoffClaims WHERE keepUntil < ?", arguments: [now])
            try db.execute(
                sql: "INSERT INTO handoffClaims (id, claimedAt, keepUntil) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING",
                arguments: [id, now, keepUntil])
            return db.changesCount == 1
        }
    }

    public func insertUser(_ user: UserRecord) async throws(StoreError) {
        try await write { db in try user.insert(db) }
    }

    public func updateUser(_ user: UserRecord, readAs read: UserRecord) async throws(StoreError) {
        try await write { db in try Self.update(user, readAs: read, in: db) }
    }

    /// Writes what changed in `user` if the account is still at the version `read` has.
    private static func update(_ user: UserRecord, readAs read: UserRecord, in db: Database) throws {
        var next = user
        next.version = read.version &+ 1  // a stored value: wrapping still differs from what was read
        // One writer at a time: the check and the write cannot be split by another write.
        let stored = try Int64.fetchOne(
            db, sql: "SELECT version FROM users WHERE tenantID = ? AND localID = ?",
            arguments: [read.tenantID, read.localID])
        guard stored == read.version else { throw StoreError.conflict }
        try next.updateChanges(db, from: read)
    }

    public func commit(_ writes: AuthWrites) async throws(StoreError) -> AuthCommit {
        // One write transaction: a throw anywhere in it (a lost race, a full disk) rolls back all of it.
        try await write { db in
            if let spending = writes.spending {
                guard let record = try OobCodeRecord.fetchOne(db, key: spending.code) else { return .codeInvalid }
                guard record.expiresAt > spending.now else { return .codeExpired }
                try record.delete(db)
            }
            for user in writes.insertedUsers { try user.insert(db) }
            for update in writes.updatedUsers { try Self.update(update.user, readAs: update.read, in: db) }
            for code in writes.insertedCodes { try code.insert(db) }
            for token in writes.refreshTokens { try token.insert(db) }
            for mail in writes.mails { try Self.enqueue(mail, in: db) }
            return .committed
        }
    }

    public func recordSignIn(of read: UserRecord, lastLoginAt: Int64?, lastRefreshAt: Int64) async throws(StoreError) {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE users SET lastLoginAt = COALESCE(?, lastLoginAt), lastRefreshAt = ?
                    WHERE tenantID = ? AND localID = ? AND version = ?
                    """, arguments: [lastLoginAt, lastRefreshAt, read.tenantID, read.localID, read.version])
            guard db.changesCount == 1 else { throw StoreError.conflict }
        }
    }

    public func deleteUser(tenantID: String, localID: String) async throws(StoreError) -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM refreshTokens WHERE tenantID = ? AND localID = ?", arguments: [tenantID, localID])
            return try UserRecord.deleteOne(db, key: ["tenantID": tenantID, "localID": localID])
        }
    }

    public func user(tenantID: String, localID: String) async throws(StoreError) -> UserRecord? {
        try await read { db in try UserRecord.fetchOne(db, key: ["tenantID": tenantID, "localID": localID]) }
    }

    public func user(tenantID: String, email: String) async throws(StoreError) -> UserRecord? {
        try await read { db in
            try UserRecord.filter(Column("tenantID") == tenantID && Column("email") == email).fetchOne(db)
        }
    }

    public func user(tenantID: String, phoneNumber: String) async throws(StoreError) -> UserRecord? {
        try await read { db in
            try UserRecord.filter(Column("tenantID") == tenantID && Column("phoneNumber") == phoneNumber).fetchOne(db)
        }
    }

    public func users(tenantID: String, providerDataContaining fragment: String) async throws(StoreError) -> [UserRecord] {
        try await read { db in
            try UserRecord.filter(sql: "tenantID = ? AND instr(providerData, ?) > 0", arguments: [tenantID, fragment]).limit(100).fetchAll(db)
        }
    }

    public func users(tenantID: String, emailPrefix prefix: String, limit: Int) async throws(StoreError) -> [UserRecord] {
        // A range on the address index: every address starting with the prefix sorts between it and
        // it followed by the highest code point (SQLite compares text as bytes).
        try await read { db in
            try UserRecord.filter(sql: "tenantID = ? AND email >= ? AND email < ?", arguments: [tenantID, prefix, prefix + "\u{10FFFF}"])
                .order(Column("email")).limit(limit).fetchAll(db)
        }
    }

    public func users(tenantID: String, afterLocalID: String, limit: Int) async throws(StoreError) -> [UserRecord] {
        try await read { db in
            try UserRecord.filter(Column("tenantID") == tenantID && Column("localID") > afterLocalID).order(Column("localID")).limit(limit).fetchAll(db)
        }
    }

    public func deleteAllUsers(tenantID: String) async throws(StoreError) {
        try await write { db in
            try db.execute(sql: "DELETE FROM refreshTokens WHERE tenantID = ?", arguments: [tenantID])
            try db.execute(sql: "DELETE FROM users WHERE tenantID = ?", arguments: [tenantID])
        }
    }

    public func insertCode(_ code: OobCodeRecord) async throws(StoreError) {
        try await write { db in try code.insert(db) }
    }

    public func code(_ code: String) async throws(StoreError) -> OobCodeRecord? {
        // Every reset form asks this: a prepared statement kept by the connection, not a query built each time.
        try await read { db in
            try OobCodeRecord.fetchOne(db.cachedStatement(sql: Self.codeQuery), arguments: [code])
        }
    }

    package static let codeQuery = "SELECT * FROM \(OobCodeRecord.databaseTableName) WHERE code = ?"

    public func codes(projectID: String) async throws(StoreError) -> [OobCodeRecord] {
        try await read { db in
            try OobCodeRecord.filter(Column("projectID") == projectID).order(Column("createdAt"), Column("code")).fetchAll(db)
        }
    }

    public func insertRefreshToken(_ token: RefreshTokenRecord) async throws(StoreError) {
        try await write { db in try token.insert(db) }
    }

    public func refreshToken(_ token: String) async throws(StoreError) -> RefreshTokenRecord? {
        try await read { db in try RefreshTokenRecord.fetchOne(db, key: token) }
    }

    public func signingKey(_ id: SigningKeyID, orInsert make: @escaping @Sendable () throws -> String) async throws(StoreError) -> String {
        try await write { db in
            if let pem = try String.fetchOne(db, sql: "SELECT pem FROM signingKeys WHERE id = ?", arguments: [id.rawValue]) { return pem }
            let pem = try make()
            try db.execute(sql: "INSERT INTO signingKeys (id, pem) VALUES (?, ?)", arguments: [id.rawValue, pem])
            return pem
        }
    }

    // MARK: Error mapping

    package func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        do {
            return try await pool.write(body)
        } catch {
            throw Self.storeError(error)
        }
    }

    package func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        do {
            return try await pool.read(body)
        } catch {
            throw Self.storeError(error)
        }
    }

    private static func storeError(_ error: any Error) -> StoreError {
        if let error = error as? StoreError { return error }
        // A full disk refuses writes until space returns: a 503 to try again, like a database away.
        if let error = error as? DatabaseError, error.resultCode == .SQLITE_FULL { return .unavailable }
        if let error = error as? DatabaseError, error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE,
            error.message?.contains("email") == true
        {
            return .emailExists
        }
        if let error = error as? DatabaseError, error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE,
            error.message?.contains("phoneNumber") == true
        {
            return .phoneNumberExists
        }
        if let error = error as? DatabaseError, error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY,
            error.message?.contains("shortLinks") == true
        {
            return .duplicate
        }
        if let error = error as? DatabaseError {
            return .database("SQLite error \(error.resultCode.rawValue)")
        }
        return .database(String(describing: type(of: error)))
    }
}

extension UserRecord: FetchableRecord, PersistableRecord {
    public static var databaseTableName: String { "users" }
}

extension OobCodeRecord: FetchableRecord, PersistableRecord {
    public static var databaseTableName: String { "oobCodes" }
}

extension RefreshTokenRecord: FetchableRecord, PersistableRecord {
    public static var databaseTableName: String { "refreshTokens" }
}

extension ShortLinkRecord: FetchableRecord, PersistableRecord {
    public static var databaseTableName: String { "shortLinks" }
}
