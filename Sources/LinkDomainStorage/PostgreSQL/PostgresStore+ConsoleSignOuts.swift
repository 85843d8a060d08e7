import LinkDomainCore
import PostgresNIO

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
            try await client.query(
                """
                INSERT INTO console_sign_outs (actor, count) VALUES (\(actor), 1)
                ON CONFLICT (actor) DO UPDATE SET count = console_sign_outs.count + 1
                """, logger: logger)
        }
    }
}
