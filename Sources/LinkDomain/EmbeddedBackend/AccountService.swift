import Foundation
import Logging
import Synchronization

/// Who is calling and for which tenant: client calls carry an API key, admin calls `Bearer owner`.
struct CallContext: Sendable {
    var tenantID: String = ""
    var isAdmin = false
    /// From `X-Firebase-Locale`; the language action links carry.
    var languageCode: String?
}

/// The Identity-Toolkit-compatible account operations of the embedded backend.
struct AccountService: Sendable {
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
    /// What the emulator's configuration hook changed while running (development only).
    let overrides = ProjectOverrides()

    /// Whether answers hide which addresses have accounts: the configuration's
    /// `emailEnumerationProtection`, unless the emulator's hook changed it.
    var hidesAccounts: Bool { overrides.enumerationProtection ?? settings.emailEnumerationProtection }


    // MARK: Shared by the operations

    /// The account a call acts on: an admin names it by `localId`, a user by their `idToken`.
    func targetUser(_ body: RequestBody, _ context: CallContext) async throws -> UserRecord {
        if context.isAdmin, let localID = body.string("localId") {
            guard let user = try await store.user(tenantID: context.tenantID, localID: localID) else { throw IdentityToolkitError.userNotFound }
            return user
        }
        if let idToken = body.string("idToken") { return try await authenticatedUser(idToken: idToken, context: context) }
        throw context.isAdmin ? IdentityToolkitError.missingLocalID : .missingIDToken
    }

    func insert(_ user: UserRecord) async throws {
        do {
            try await store.insertUser(user)
        } catch {
            throw Self.refusal(error)
        }
    }

    func update(_ user: UserRecord) async throws {
        do {
            try await store.updateUser(user)
        } catch {
            throw Self.refusal(error)
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
        let email = raw.trimmingCharacters(in: .whitespaces).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        // No whitespace or control characters: an address is shown in pages and mails, and must not carry escape sequences.
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            email.utf8.count <= 254, !email.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control })
        else { throw IdentityToolkitError.invalidEmail }
        return email
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
