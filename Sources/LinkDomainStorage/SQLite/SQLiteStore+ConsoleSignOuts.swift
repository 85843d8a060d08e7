import GRDB
import LinkDomainCore

extension SQLiteStore: ConsoleSignOutStore {
    public func consoleSignOuts(actor: String) async throws(StoreError) -> Int64 {
        try await read { db in try Int64.fetchOne(db, sql: "SELECT count FROM consoleSignOuts WHERE actor = ?", arguments: [actor]) ?? 0 }
    }

    public func recordConsoleSignOut(actor: String) async throws(StoreError) {
        try await write { db in
            try db.execute(
                sql: "INSERT INTO consoleSignOuts (actor, count) VALUES (?, 1) ON CONFLICT (actor) DO UPDATE SET count = count + 1",
                arguments: [actor])
        }
    }
}
