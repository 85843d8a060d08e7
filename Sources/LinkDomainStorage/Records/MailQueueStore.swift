import LinkDomainCore

/// A mail waiting for (or done with) the relay. The message is kept until it is sent, then dropped:
/// it holds a live code. A failed mail keeps it, for an operator to send again (``MailAdminStore``)
/// or discard; the code it carries is in the same database anyway, until it expires.
public struct QueuedMail: Sendable, Equatable {
    public var id: String
    /// The envelope's sender and recipient (`MAIL FROM`, `RCPT TO`).
    public var sender: String
    public var recipient: String
    /// The whole message, signed.
    public var message: String
    /// Which mail (`sign-in`, `reset-password` ...), for metrics.
    public var kind: String
    /// Milliseconds since 1970.
    public var queuedAt: Int64
    /// Delivery attempts so far, the claim that returned it included.
    public var attempts: Int
    /// The language it is written in (`en`, `pt-PT` ...), for the console.
    public var language = "en"

    public init(
        id: String, sender: String, recipient: String, message: String, kind: String, queuedAt: Int64, attempts: Int = 0,
        language: String = "en"
    ) {
        self.id = id
        self.sender = sender
        self.recipient = recipient
        self.message = message
        self.kind = kind
        self.queuedAt = queuedAt
        self.attempts = attempts
        self.language = language
    }
}

/// Where a mail is in its life.
public enum MailState: String, Sendable {
    case queued, sent, failed
}

/// What the queue holds, for metrics and `linkdomain mail status`.
public struct MailQueueSummary: Sendable, Equatable {
    public var queued: Int
    public var sent: Int
    public var failed: Int
    /// When the oldest mail still queued was queued (milliseconds), if any.
    public var oldestQueuedAt: Int64?
}

/// The outgoing mail queue: stored before the API answers, claimed by one sender at a time.
public protocol MailQueueStore: Sendable {
    func enqueue(_ mail: QueuedMail) async throws(StoreError)
    /// Up to `limit` mails due at `now`, each claimed until `leaseUntil`: no other claim returns them
    /// before then, across replicas. A sender that dies holding them leaves them to the next claim.
    func claimDue(now: Int64, limit: Int, leaseUntil: Int64) async throws(StoreError) -> [QueuedMail]
    /// Delivered (or, in development without a relay, logged): the message (and its code) is
    /// dropped. `note` is what the console shows beside it (why it was only logged).
    func markSent(id: String, now: Int64, note: String?) async throws(StoreError)
    /// Given up: the relay refused it for good, or retries ran out. `reason` quotes the relay. The
    /// message stays, for a retry from the console.
    func markFailed(id: String, reason: String, now: Int64) async throws(StoreError)
    /// Try again at `at` (milliseconds).
    func reschedule(id: String, at: Int64, reason: String) async throws(StoreError)
    /// Frees the claims no sender holds any more, where the store can know that (at start).
    func releaseAbandonedClaims() async throws(StoreError)
    func summary() async throws(StoreError) -> MailQueueSummary
    /// The reason recorded for mail `id`, and its state: what an operator asks after a failure.
    func state(id: String) async throws(StoreError) -> (state: MailState, lastError: String?)?
}
