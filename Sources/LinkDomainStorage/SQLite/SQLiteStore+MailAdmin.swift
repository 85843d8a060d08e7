import GRDB
import LinkDomainCore

/// What the console reads and changes in the SQLite mail queue.
extension SQLiteStore: MailAdminStore {
    public func mails(_ query: MailQuery) async throws(StoreError) -> [MailListing] {
        var conditions: [String] = []
        var arguments = StatementArguments()
        if let state = query.state {
            conditions.append("state = ?")
            arguments += [state.rawValue]
        }
        if let recipient = query.recipient {
            // Addresses are stored as given; lower() folds their ASCII, which is what people mistype.
            conditions.append("instr(lower(recipient), lower(?)) > 0")
            arguments += [recipient]
        }
        if let after = query.after {
            conditions.append("(queuedAt < ? OR (queuedAt = ? AND id < ?))")
            arguments += [after.queuedAt, after.queuedAt, after.id]
        }
        arguments += [query.limit]
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let sql = "SELECT * FROM mailQueue \(filter) ORDER BY queuedAt DESC, id DESC LIMIT ?"
        return try await read { [arguments] db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).compactMap { row in
                guard let state = MailState(rawValue: row["state"]) else { return nil }
                return MailListing(
                    id: row["id"], recipient: row["recipient"], kind: row["kind"], language: row["language"], state: state, queuedAt: row["queuedAt"],
                    attempts: row["attempts"], lastError: row["lastError"], finishedAt: row["finishedAt"],
                    nextAttemptAt: state == .queued ? row["nextAttemptAt"] : nil)
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
