import LinkDomainCore
import PostgresNIO

/// The mail queue in PostgreSQL, shared by replicas: a claim locks the rows it takes and skips
/// the ones another replica is taking (`FOR UPDATE SKIP LOCKED`), so each mail goes out once.
extension PostgresStore: MailQueueStore {
    public func enqueue(_ mail: QueuedMail) async throws(StoreError) {
        try await guarded { try await client.query(Self.insertion(of: mail), logger: logger) }
    }

    package static func insertion(of mail: QueuedMail) -> PostgresQuery {
        """
        INSERT INTO mail_queue (id, sender, recipient, message, kind, state, queued_at, next_attempt_at, attempts, language)
        VALUES (\(mail.id), \(mail.sender), \(mail.recipient), \(mail.message), \(mail.kind), 'queued', \(mail.queuedAt), \(mail.queuedAt), 0,
                \(mail.language))
        """
    }

    public func claimDue(now: Int64, limit: Int, leaseUntil: Int64) async throws(StoreError) -> [QueuedMail] {
        try await guarded {
            var claimed: [QueuedMail] = []
            let rows = try await client.query(
                """
                UPDATE mail_queue SET claimed_until = \(leaseUntil), attempts = attempts + 1
                WHERE id IN (SELECT id FROM mail_queue WHERE state = 'queued' AND next_attempt_at <= \(now)
                             AND (claimed_until IS NULL OR claimed_until <= \(now))
                             ORDER BY next_attempt_at LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                RETURNING id, sender, recipient, message, kind, queued_at, attempts
                """, logger: logger)
            for try await (id, sender, recipient, message, kind, queuedAt, attempts) in rows.decode(
                (String, String, String, String?, String, Int64, Int32).self)
            {
                claimed.append(
                    QueuedMail(
                        id: id, sender: sender, recipient: recipient, message: message ?? "", kind: kind, queuedAt: queuedAt,
                        attempts: Int(attempts)))
            }
            return claimed.sorted { $0.queuedAt < $1.queuedAt }
        }
    }

    public func markSent(id: String, now: Int64, note: String?) async throws(StoreError) {
        try await guarded {
            try await client.query(
                "UPDATE mail_queue SET state = 'sent', message = NULL, claimed_until = NULL, last_error = \(note), finished_at = \(now) WHERE id = \(id)",
                logger: logger)
        }
    }

    public func markFailed(id: String, reason: String, now: Int64) async throws(StoreError) {
        try await guarded {
            try await client.query(
                """
                UPDATE mail_queue SET state = 'failed', claimed_until = NULL, last_error = \(reason), finished_at = \(now) WHERE id = \(id)
                """, logger: logger)
        }
    }

    public func reschedule(id: String, at: Int64, reason: String) async throws(StoreError) {
        try await guarded {
            try await client.query(
                "UPDATE mail_queue SET next_attempt_at = \(at), last_error = \(reason), claimed_until = NULL WHERE id = \(id) AND state = 'queued'",
                logger: logger)
        }
    }

    /// Replicas share the queue: a claim is released only by its lease running out.
    public func releaseAbandonedClaims() async throws(StoreError) {}

    public func summary() async throws(StoreError) -> MailQueueSummary {
        try await guarded {
            var summary = MailQueueSummary(queued: 0, sent: 0, failed: 0)
            let rows = try await client.query("SELECT state, COUNT(*), MIN(queued_at) FROM mail_queue GROUP BY state", logger: logger)
            for try await (state, count, oldest) in rows.decode((String, Int64, Int64?).self) {
                switch MailState(rawValue: state) {
                case .queued?:
                    summary.queued = Int(count)
                    summary.oldestQueuedAt = oldest
                case .sent?: summary.sent = Int(count)
                case .failed?: summary.failed = Int(count)
                case nil: break
                }
            }
            return summary
        }
    }

    public func state(id: String) async throws(StoreError) -> (state: MailState, lastError: String?)? {
        try await guarded {
            let rows = try await client.query("SELECT state, last_error FROM mail_queue WHERE id = \(id)", logger: logger)
            for try await (state, lastError) in rows.decode((String, String?).self) {
                if let state = MailState(rawValue: state) { return (state, lastError) }
            }
            return nil
        }
    }
}
