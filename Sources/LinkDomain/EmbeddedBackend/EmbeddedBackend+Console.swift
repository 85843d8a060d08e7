import Foundation
import LinkDomainCore
import LinkDomainStorage

/// What the console does to the embedded backend's accounts: the same admin operations
/// firebase-admin calls (`accounts:update`, `accounts:delete`, `accounts:sendOobCode`), so a
/// change from the console is the change the API makes, with the same checks.
extension EmbeddedBackend {
    /// Accounts (of the default tenant) whose address, user ID or phone number is `text`, then
    /// those whose address starts with it (20 at most).
    func findAccounts(_ text: String) async throws -> [UserRecord] {
        let text = text.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, text.utf8.count <= 320 else { return [] }
        let store = service.store
        var found: [UserRecord] = []
        for candidate in [
            try await store.user(tenantID: "", email: text.lowercased()), try await store.user(tenantID: "", localID: text),
            try await store.user(tenantID: "", phoneNumber: text),
        ] {
            if let candidate, !found.contains(where: { $0.localID == candidate.localID }) { found.append(candidate) }
        }
        for candidate in try await store.users(tenantID: "", emailPrefix: text.lowercased(), limit: 20)
        where !found.contains(where: { $0.localID == candidate.localID }) {
            found.append(candidate)
        }
        return found
    }

    func account(localID: String) async throws -> UserRecord? {
        guard localID.utf8.count <= 128 else { return nil }
        return try await service.store.user(tenantID: "", localID: localID)
    }

    func setDisabled(_ disabled: Bool, localID: String) async throws {
        _ = try await service.update(UpdateAccountRequest(localID: localID, disabled: disabled), Self.admin)
    }

    /// Refresh tokens issued before now stop working: every session signs in again. The second is
    /// rounded up, as a password reset does (``UserRecord/revokeSessions(at:)``): a token of this
    /// second is not left valid.
    func revokeSessions(localID: String, now: Int64) async throws {
        let validSince = UserRecord.validSince(revokingAt: now)
        _ = try await service.update(UpdateAccountRequest(localID: localID, validSince: validSince), Self.admin)
    }

    func deleteAccount(localID: String) async throws {
        _ = try await service.delete(DeleteAccountRequest(localID: localID), Self.admin)
    }

    /// Mails the account a password-reset or verify-email link, as `sendOobCode` does for an admin.
    func sendMail(_ type: OobRequestType, email: String) async throws {
        _ = try await service.sendOobCode(SendOobCodeRequest(requestType: type, email: email), Self.admin)
    }

    /// Whether mails are made at all: with a relay, or in development without one (logged, not sent).
    var makesMail: Bool { service.outbox != nil }

    private static let admin = CallContext(isAdmin: true)
}
