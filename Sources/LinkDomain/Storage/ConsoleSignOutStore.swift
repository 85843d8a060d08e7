import GRDB
import PostgresNIO

/// How many times each console actor has signed out, in the shared database: a session sealed
/// at an earlier count has ended on every replica, even in a copy of its cookie taken before.
public protocol ConsoleSignOutStore: Sendable {
    /// `actor`'s sign-outs so far (0 when none).
    func consoleSignOuts(actor: String) async throws(StoreError) -> Int64
    /// Ends every session of `actor`: one more sign-out.
    func recordConsoleSignOut(actor: String) async throws(StoreError)
}

extension SQLiteStore: ConsoleSignOutStore {
    public func consoleSignOuts(actor: String) async throws(StoreError) -> Int64 {
        try await read { db in try Int64.fetchOne(db, sql: "SELECT count FROM consoleSignOuts WHERE actor = ?", arguments: [actor]) ?? 0 }
    }

    public func recordConsoleSignOut(actor: String) async throws(StoreError) {
        try await write { db in
            try db.execute(sql: "INSERT INTO consoleSignOuts (actor, count) VALUES (?, 1) ON CONFLICT (actor) DO UPDATE SET count = count + 1",
                           arguments: [actor])
        }
    }
}

extension PostgresStore: ConsoleSignOutStore {
    public func consoleSignOuts(actor: String) async throws(StoreError) -> Int64 {
        try await guarded {
            for try await count in try await client.query("SELECT count FROM console_sign_outs WHERE actor = \(actor)", logger: logger)
                .decode(Int64.self)
            {
                return count
            }
            return 0
        }
    }

    public func recordConsoleSignOut(actor: String) async throws(StoreError) {
        try await guarded {
            try await client.query("""
                INSERT INTO console_sign_outs (actor, count) VALUES (\(actor), 1)
                ON CONFLICT (actor) DO UPDATE SET count = console_sign_outs.count + 1
                """, logger: logger)
        }
    }
}
