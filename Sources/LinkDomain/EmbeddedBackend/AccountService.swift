import Foundation
import Logging

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
            if error == .emailExists { throw IdentityToolkitError.emailExists }
            throw error
        }
    }

    func update(_ user: UserRecord) async throws {
        do {
            try await store.updateUser(user)
        } catch {
            if error == .emailExists { throw IdentityToolkitError.emailExists }
            throw error
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

extension Optional {
    /// `map` with an async transform.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async throws -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
