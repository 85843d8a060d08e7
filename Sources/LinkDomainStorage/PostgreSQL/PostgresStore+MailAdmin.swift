import LinkDomainCore
import PostgresNIO

/// What the console reads and changes in the PostgreSQL mail queue.
extension PostgresStore: MailAdminStore {
    public func mails(state: MailState, after: MailCursor?, limit: Int) async throws(StoreError) -> [MailListing] {
        let query: PostgresQuery =
            if let after {
                """
                SELECT id, recipient, kind, language, queued_at, attempts, last_error, finished_at FROM mail_queue
                WHERE state = \(state.rawValue) AND (queued_at < \(after.queuedAt) OR (queued_at = \(after.queuedAt) AND id < \(after.id)))
                ORDER BY queued_at DESC, id DESC LIMIT \(limit)
                """
            } else {
                """
                SELECT id, recipient, kind, language, queued_at, attempts, last_error, finished_at FROM mail_queue
                WHERE state = \(state.rawValue) ORDER BY queued_at DESC, id DESC LIMIT \(limit)
                """
            }
        return try await guarded {
            var mails: [MailListing] = []
            for try await (id, recipient, kind, language, queuedAt, attempts, lastError, finishedAt) in try await client.query(query, logger: logger)
                .decode((String, String, String, String, Int64, Int32, String?, Int64?).self)
            {
                mails.append(
                    MailListing(
                        id: id, recipient: recipient, kind: kind, language: language, state: state, queuedAt: queuedAt, attempts: Int(attempts),
                        lastError: lastError, finishedAt: finishedAt))
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
