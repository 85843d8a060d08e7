import LinkDomainCore
import PostgresNIO

/// What the console reads and changes in the PostgreSQL mail queue.
extension PostgresStore: MailAdminStore {
    public func mails(_ query: MailQuery) async throws(StoreError) -> [MailListing] {
        var sql =
            "SELECT id, recipient, kind, language, state, queued_at, attempts, last_error, finished_at, next_attempt_at FROM mail_queue WHERE TRUE"
        var bindings = PostgresBindings()
        if let state = query.state {
            bindings.append(state.rawValue)
            sql += " AND state = $\(bindings.count)"
        }
        if let recipient = query.recipient {
            bindings.append(recipient)
            sql += " AND strpos(lower(recipient), lower($\(bindings.count))) > 0"
        }
        if let after = query.after {
            bindings.append(after.queuedAt)
            let queuedAt = bindings.count
            bindings.append(after.id)
            sql += " AND (queued_at < $\(queuedAt) OR (queued_at = $\(queuedAt) AND id < $\(bindings.count)))"
        }
        bindings.append(query.limit)
        // Only placeholders are written into the statement, never the caller's text.
        let statement = PostgresQuery(unsafeSQL: sql + " ORDER BY queued_at DESC, id DESC LIMIT $\(bindings.count)", binds: bindings)
        return try await guarded {
            var mails: [MailListing] = []
            for try await (id, recipient, kind, language, stateName, queuedAt, attempts, lastError, finishedAt, nextAttemptAt) in try await client.query(
                statement, logger: logger
            ).decode((String, String, String, String, String, Int64, Int32, String?, Int64?, Int64).self) {
                guard let state = MailState(rawValue: stateName) else { continue }
                mails.append(
                    MailListing(
                        id: id, recipient: recipient, kind: kind, language: language, state: state, queuedAt: queuedAt, attempts: Int(attempts),
                        lastError: lastError, finishedAt: finishedAt, nextAttemptAt: state == .queued ? nextAttemptAt : nil))
            }
            return mails
        }
    }

    public func retryNow(id: String, now: Int64) async throws(StoreError) -> Bool {
        try await returnsRow(
            """
            UPDATE mail_queue SET state = 'queued', next_attempt_at = \(now), finished_at = NULL
            WHERE id = \(id) AND state IN ('queued', 'failed') AND message IS NOT NULL AND (claimed_until IS NULL OR claimed_until <= \(now))
            RETURNING id
            """)
    }

    public func discard(id: String, now: Int64) async throws(StoreError) -> Bool {
        try await returnsRow(
            """
            DELETE FROM mail_queue WHERE id = \(id) AND state IN ('queued', 'failed') AND (claimed_until IS NULL OR claimed_until <= \(now))
            RETURNING id
            """)
    }

    private func returnsRow(_ query: PostgresQuery) async throws(StoreError) -> Bool {
        try await guarded {
            for try await _ in try await client.query(query, logger: logger).decode(String.self) { return true }
            return false
        }
    }
}
