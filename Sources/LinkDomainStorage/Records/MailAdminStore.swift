import LinkDomainCore

/// A mail as the console and `GET /v1/mail` list it: never its message (which carries a code).
public struct MailListing: Sendable, Equatable {
    public var id: String
    public var recipient: String
    /// Which mail (`sign-in`, `reset-password` ...).
    public var kind: String
    /// The language it is written in.
    public var language: String
    public var state: MailState
    /// Milliseconds since 1970.
    public var queuedAt: Int64
    public var attempts: Int
    /// The relay's last answer, or why the last attempt failed.
    public var lastError: String?
    /// When it was sent or given up (milliseconds).
    public var finishedAt: Int64?
    /// A waiting mail's next attempt (milliseconds); nil once it was sent or given up.
    public var nextAttemptAt: Int64?

    public init(
        id: String, recipient: String, kind: String, language: String, state: MailState, queuedAt: Int64, attempts: Int, lastError: String?,
        finishedAt: Int64?, nextAttemptAt: Int64? = nil
    ) {
        self.id = id
        self.recipient = recipient
        self.kind = kind
        self.language = language
        self.state = state
        self.queuedAt = queuedAt
        self.attempts = attempts
        self.lastError = lastError
        self.finishedAt = finishedAt
        self.nextAttemptAt = nextAttemptAt
    }
}

/// Which mails to list: in one state or all, to recipients whose address contains some text (in
/// any case: "I never got the mail" starts from the address someone gives), newest first, paged.
public struct MailQuery: Sendable, Equatable {
    public var state: MailState?
    public var recipient: String?
    public var after: MailCursor?
    public var limit: Int

    public init(state: MailState? = nil, recipient: String? = nil, after: MailCursor? = nil, limit: Int = 50) {
        self.state = state
        self.recipient = recipient
        self.after = after
        self.limit = limit
    }
}

/// Where a page of mails ended: the next starts after it (newest first).
public struct MailCursor: Sendable, Equatable {
    public var queuedAt: Int64
    public var id: String

    public init(queuedAt: Int64, id: String) {
        self.queuedAt = queuedAt
        self.id = id
    }
}

extension MailCursor {
    package init?(pageToken: some StringProtocol) {
        guard let (queuedAt, id) = PageToken.decode(pageToken) else { return nil }
        self.init(queuedAt: queuedAt, id: id)
    }

    package var pageToken: String { PageToken.encode(value: queuedAt, key: id) }
}

/// What the console reads and changes in the mail queue.
public protocol MailAdminStore: MailQueueStore {
    /// The mails `query` asks for, newest first.
    func mails(_ query: MailQuery) async throws(StoreError) -> [MailListing]
    /// A waiting or failed mail made due now (its attempts kept); false when there is no such mail,
    /// or a sender holds it this moment.
    func retryNow(id: String, now: Int64) async throws(StoreError) -> Bool
    /// A waiting or failed mail removed, message and all; false when there is no such mail, or a
    /// sender holds it this moment.
    func discard(id: String, now: Int64) async throws(StoreError) -> Bool
}
