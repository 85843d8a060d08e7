import GRDB
import LinkDomainCore

/// What the console reads and changes in the SQLite mail queue.
extension SQLiteStore: MailAdminStore {
    public func mails(state: MailState, after: MailCursor?, limit: Int) async throws(StoreError) -> [MailListing] {
        try await read { db in
            let rows =
                if let after {
                    try Row.fetchAll(
                        db,
                        sql: """
                            SELECT * FROM mailQueue WHERE state = ? AND (queuedAt < ? OR (queuedAt = ? AND id < ?))
                            ORDER BY queuedAt DESC, id DESC LIMIT ?
                            """, arguments: [state.rawValue, after.queuedAt, after.queuedAt, after.id, limit])
                } else {
                    try Row.fetchAll(
                        db, sql: "SELECT * FROM mailQueue WHERE state = ? ORDER BY queuedAt DESC, id DESC LIMIT ?",
                        arguments: [state.rawValue, limit])
                }
            return rows.map { row in
                MailListing(
                    id: row["id"], recipient: row["recipient"], kind: row["kind"], language: row["language"], state: state, queuedAt: row["queuedAt"],
                    attempts: row["attempts"], lastError: row["lastError"], finishedAt: row["finishedAt"])
            }
        }
    }

    public func retryNow(id: String, now: Int64) async throws(StoreError) -> Bool {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE mailQueue SET state = 'queued', nextAttemptAt = ?, finishedAt = NULL
                    WHERE id = ? AND state IN ('queued', 'failed') AND message IS NOT NULL AND (claimedUntil IS NULL OR claimedUntil <= ?)
                    """, arguments: [now, id, now])
            return db.changesCount == 1
        }
    }

    public func discard(id: String, now: Int64) async throws(StoreError) -> Bool {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM mailQueue WHERE id = ? AND state IN ('queued', 'failed') AND (claimedUntil IS NULL OR claimedUntil <= ?)",
                arguments: [id, now])
            return db.changesCount == 1
        }
    }
}
