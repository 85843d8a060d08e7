import LinkDomainCore

/// The writes one account action makes, committed together or not at all: spending a code and
/// making its effect, an effect and the mail that tells of it, a new account and its session.
/// A fault between two of them (the database away, a disk full, a lost race) leaves none made
/// (docs/security.md, "One action, one transaction").
public struct AuthWrites: Sendable {
    /// The code the action spends: the writes are made only if it is unspent and live at `now`.
    public struct Spending: Sendable, Equatable {
        public var code: String
        public var now: Int64

        public init(code: String, now: Int64) {
            self.code = code
            self.now = now
        }
    }

    /// An account written only if it is still as the action read it (its version).
    public struct Update: Sendable, Equatable {
        public var user: UserRecord
        public var read: UserRecord

        public init(_ user: UserRecord, readAs read: UserRecord) {
            self.user = user
            self.read = read
        }
    }

    public var spending: Spending?
    public var insertedUsers: [UserRecord] = []
    public var updatedUsers: [Update] = []
    public var insertedCodes: [OobCodeRecord] = []
    public var refreshTokens: [RefreshTokenRecord] = []
    /// Mails into this database's queue (``MailQueueStore``), so a mail exists exactly when its effect does.
    public var mails: [QueuedMail] = []

    public init(
        spending: Spending? = nil, insertedUsers: [UserRecord] = [], updatedUsers: [Update] = [], insertedCodes: [OobCodeRecord] = [],
        refreshTokens: [RefreshTokenRecord] = [], mails: [QueuedMail] = []
    ) {
        self.spending = spending
        self.insertedUsers = insertedUsers
        self.updatedUsers = updatedUsers
        self.insertedCodes = insertedCodes
        self.refreshTokens = refreshTokens
        self.mails = mails
    }
}

/// What committing ``AuthWrites`` did.
public enum AuthCommit: Sendable, Equatable {
    /// Every write was made (and the code, if any, spent).
    case committed
    /// The code was unknown or already spent: nothing was written.
    case codeInvalid
    /// The code had expired: nothing was written.
    case codeExpired
}
