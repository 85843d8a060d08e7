import Foundation
import LinkDomainCore
import LinkDomainStorage
import Logging
import Synchronization

/// Who is calling and for which tenant: client calls carry an API key, admin calls `Bearer owner`.
package struct CallContext: Sendable {
    var tenantID: String = ""
    var isAdmin = false
    /// From `X-Firebase-Locale`; the language action links carry.
    var languageCode: String?
    /// The caller's address as the abuse limits see it (behind trusted proxies, the forwarded one):
    /// what per-client budgets and shares count by. Empty for calls the service makes itself.
    var clientAddress = ""

    package init(tenantID: String = "", isAdmin: Bool = false, languageCode: String? = nil, clientAddress: String = "") {
        self.tenantID = tenantID
        self.isAdmin = isAdmin
        self.languageCode = languageCode
        self.clientAddress = clientAddress
    }

    /// The request's language when the pages and mails speak it (docs/design/languages.md).
    var spokenLanguage: String? { languageCode.flatMap { Languages.spoken(Substring($0)) } }
}

/// The Identity-Toolkit-compatible account operations of the embedded backend.
package struct AccountService: Sendable {
    let settings: EmbeddedBackendSettings
    let store: any AuthStore
    let tokens: TokenIssuer
    var passwords: PasswordService {
        PasswordService(hasher: PasswordHasher(rounds: settings.passwordHashRounds), pool: .shared)
    }
    let clock: any WallClock
    let logger: Logger
    /// Where its own mails go (reset, verification, sign-in, the recover notice) when mail is configured.
    var outbox: MailOutbox?
    /// What requests leave running after their answer (a password reset's lookup and mail).
    var pendingWork = PendingWork()
    /// What the emulator's configuration hook changed while running (development only).
    let overrides = ProjectOverrides()

    /// Whether answers hide which addresses have accounts: the configuration's
    /// `emailEnumerationProtection`, unless the emulator's hook changed it.
    var hidesAccounts: Bool { overrides.enumerationProtection ?? settings.emailEnumerationProtection }

    package init(
        settings: EmbeddedBackendSettings, store: any AuthStore, tokens: TokenIssuer, clock: any WallClock, logger: Logger,
        outbox: MailOutbox? = nil, pendingWork: PendingWork = PendingWork()
    ) {
        self.settings = settings
        self.store = store
        self.tokens = tokens
        self.clock = clock
        self.logger = logger
        self.outbox = outbox
        self.pendingWork = pendingWork
    }

    // MARK: Shared by the operations

    /// The account a call acts on: an admin names it by `localId`, a user by their `idToken`.
    func targetUser(localID: String?, idToken: String?, _ context: CallContext) async throws -> UserRecord {
        if context.isAdmin, let localID {
            guard let user = try await store.user(tenantID: context.tenantID, localID: localID) else { throw IdentityToolkitError.userNotFound }
            return user
        }
        if let idToken { return try await authenticatedUser(idToken: idToken, context: context) }
        throw context.isAdmin ? IdentityToolkitError.missingLocalID : .missingIDToken
    }

    func insert(_ user: UserRecord) async throws {
        do {
            try await store.insertUser(user)
        } catch {
            throw Self.refusal(error)
        }
    }

    /// Writes what the operation changed in `user`, provided the account is still as `read`
    /// (``StoreError/conflict`` otherwise: see ``retryingLostRaces(_:)``).
    func update(_ user: UserRecord, readAs read: UserRecord) async throws {
        do {
            try await store.updateUser(user, readAs: read)
        } catch {
            throw Self.refusal(error)
        }
    }

    /// ``retryingLostRaces(_:)`` for an operation on one account whose first run takes `read` (the
    /// account as the caller read it to decide, say, whether to spend a code) and whose later runs
    /// take the account as it then is.
    func retryingLostRaces<T>(on read: UserRecord, _ operation: (UserRecord) async throws -> T) async throws -> T {
        var first: UserRecord? = read
        return try await retryingLostRaces {
            if let account = first {
                first = nil
                return try await operation(account)
            }
            guard let account = try await store.user(tenantID: read.tenantID, localID: read.localID) else { throw IdentityToolkitError.userNotFound }
            return try await operation(account)
        }
    }

    /// How often an operation runs when the account it read keeps changing under it.
    static let raceAttempts = 3

    /// Runs `operation` (which reads an account, decides, and writes conditionally on what it read)
    /// again when another request changed the account between its read and its write: the next
    /// run decides on the account as it now is (a password reset in between makes the old password
    /// fail). After ``raceAttempts`` lost races the caller is asked to try again later.
    func retryingLostRaces<T>(_ operation: () async throws -> T) async throws -> T {
        for _ in 1..<Self.raceAttempts {
            do {
                return try await operation()
            } catch StoreError.conflict {
                continue
            }
        }
        do {
            return try await operation()
        } catch StoreError.conflict {
            throw IdentityToolkitError(.tooManyAttemptsTryLater, detail: "the account changed while this request ran; try again")
        }
    }

    /// A store's refusal as the client hears it: a taken address or number is the caller's to fix.
    static func refusal(_ error: StoreError) -> any Error {
        switch error {
        case .emailExists: IdentityToolkitError.emailExists
        case .phoneNumberExists: IdentityToolkitError(.phoneNumberExists)
        default: error
        }
    }

    /// `validSince` as admins may set it: seconds from 1970 to the end of year 9999.
    static let validSinceRange: ClosedRange<Int64> = 0...253_402_300_799

    func normalizedEmail(_ raw: String) throws -> String {
        try AccountAttributes.email(raw)
    }

    func checkStrength(_ password: String) throws {
        if password.count < 6 { throw IdentityToolkitError.weakPassword }
    }
}

/// The project settings the Firebase Auth emulator lets a test change while it runs
/// (`PATCH /emulator/v1/projects/{id}/config`).
final class ProjectOverrides: Sendable {
    private let protection = Mutex<Bool?>(nil)

    var enumerationProtection: Bool? {
        get { protection.withLock { $0 } }
        set { protection.withLock { $0 = newValue } }
    }
}

extension Optional {
    /// `map` with an async transform.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async throws -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
