import GRDB
import LinkDomainCore

/// The mail queue in SQLite: one process writes the file, so a claim is one write transaction.
extension SQLiteStore: MailQueueStore {
    public func enqueue(_ mail: QueuedMail) async throws(StoreError) {
        try await write { db in try Self.enqueue(mail, in: db) }
    }

    package static func enqueue(_ mail: QueuedMail, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO mailQueue (id, sender, recipient, message, kind, state, queuedAt, nextAttemptAt, attempts, language)
                VALUES (?, ?, ?, ?, ?, 'queued', ?, ?, 0, ?)
                """, arguments: [mail.id, mail.sender, mail.recipient, mail.message, mail.kind, mail.queuedAt, mail.queuedAt, mail.language])
    }

    public func claimDue(now: Int64, limit: Int, leaseUntil: Int64) async throws(StoreError) -> [QueuedMail] {
        try await write { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, sender, recipient, message, kind, queuedAt, attempts FROM mailQueue
                    WHERE state = 'queued' AND nextAttemptAt <= ? AND (claimedUntil IS NULL OR claimedUntil <= ?) ORDER BY nextAttemptAt LIMIT ?
                    """, arguments: [now, now, limit])
            var claimed: [QueuedMail] = []
            for row in rows {
                let id: String = row["id"]
                try db.execute(sql: "UPDATE mailQueue SET claimedUntil = ?, attempts = attempts + 1 WHERE id = ?", arguments: [leaseUntil, id])
                claimed.append(
                    QueuedMail(
                        id: id, sender: row["sender"], recipient: row["recipient"], message: row["message"] ?? "", kind: row["kind"],
                        queuedAt: row["queuedAt"], attempts: (row["attempts"] as Int) + 1))
            }
            return claimed
        }
    }

    public func markSent(id: String, now: Int64, note: String?) async throws(StoreError) {
        try await write { db in
            try db.execute(
                sql: "UPDATE mailQueue SET state = 'sent', message = NULL, claimedUntil = NULL, lastError = ?, finishedAt = ? WHERE id = ?",
                arguments: [note, now, id])
        }
    }

    public func markFailed(id: String, reason: String, now: Int64) async throws(StoreError) {
        try await write { db in
            try db.execute(
                sql: "UPDATE mailQueue SET state = 'failed', claimedUntil = NULL, lastError = ?, finishedAt = ? WHERE id = ?",
                arguments: [reason, now, id])
        }
    }

    public func reschedule(id: String, at: Int64, reason: String) async throws(StoreError) {
        try await write { db in
            try db.execute(
                sql: "UPDATE mailQueue SET nextAttemptAt = ?, lastError = ?, claimedUntil = NULL WHERE id = ? AND state = 'queued'",
                arguments: [at, reason, id])
        }
    }

    /// One process writes a SQLite file: claims left when it starts were its previous run's, cut off by a crash.
    public func releaseAbandonedClaims() async throws(StoreError) {
        try await write { db in try db.execute(sql: "UPDATE mailQueue SET claimedUntil = NULL WHERE claimedUntil IS NOT NULL") }
    }

    public func summary() async throws(StoreError) -> MailQueueSummary {
        try await read { db in
            var summary = MailQueueSummary(queued: 0, sent: 0, failed: 0)
            for row in try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS count, MIN(queuedAt) AS oldest FROM mailQueue GROUP BY state") {
                let count: Int = row["count"]
                switch MailState(rawValue: row["state"]) {
                case .queued?:
                    summary.queued = count
                    summary.oldestQueuedAt = row["oldest"]
                case .sent?: summary.sent = count
                case .failed?: summary.failed = count
                case nil: break
                }
            }
            return summary
        }
    }

    public func state(id: String) async throws(StoreError) -> (state: MailState, lastError: String?)? {
        try await read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT state, lastError FROM mailQueue WHERE id = ?", arguments: [id]),
                let state = MailState(rawValue: row["state"])
            else { return nil }
            return (state, row["lastError"])
        }
    }
}
