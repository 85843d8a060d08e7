import LinkDomainCore
import LinkDomainStorage
import Synchronization

/// Spending out-of-band codes: `resetPassword` (and checking a code without spending it), `update`
/// with a code (verify, change or recover an address), and the recover-email code a change leaves.
extension AccountService {
    /// Checks a code without spending it (`accounts:resetPassword` with only `oobCode`), or resets the password.
    func resetPassword(_ request: ResetPasswordRequest, _ context: CallContext) async throws -> ResetPasswordResponse {
        guard let code = request.oobCode else { throw IdentityToolkitError.missingOobCode }
        let record = try await liveCode(code)
        guard let newPassword = request.newPassword else { return Self.checked(OobCodeSummary(record)) }
        guard record.requestType == .passwordReset else { throw IdentityToolkitError.invalidOobCode }
        try checkStrength(newPassword)
        guard let found = try await store.user(tenantID: record.tenantID, email: record.email) else {
            throw IdentityToolkitError.emailNotFound
        }
        if found.disabled { throw IdentityToolkitError.userDisabled }
        let passwordHash = try await passwords.hash(newPassword)
        // The code is spent in the same transaction that writes the new password to the account
        // as it is at the write: a fault leaves both undone, and the link still works.
        try await retryingLostRaces(on: found) { read in
            if read.disabled { throw IdentityToolkitError.userDisabled }
            var user = read
            let now = clock.nowMilliseconds()
            user.passwordHash = passwordHash
            user.passwordUpdatedAt = now
            user.emailVerified = true
            user.revokeSessions(at: now)
            try await commit(AuthWrites(spending: spending(code), updatedUsers: [AuthWrites.Update(user, readAs: read)]))
        }
        return ResetPasswordResponse(requestType: record.requestType, email: record.email)
    }

    /// A live code read without waiting (``AuthStore/codeWithoutWaiting(_:)``), for the event
    /// loop's pages; nil when that read has no live code to give (the caller then makes the
    /// check the usual way, which says why).
    func liveCodeWithoutWaiting(_ code: String) -> OobCodeSummary? {
        guard let summary = store.codeWithoutWaiting(code), summary.expiresAt > clock.nowMilliseconds() else { return nil }
        return summary
    }

    /// What checking a live code answers.
    static func checked(_ code: OobCodeSummary) -> ResetPasswordResponse {
        var response = ResetPasswordResponse(requestType: code.requestType)
        // As the emulator does: an email-link sign-in code does not reveal the address it was sent to.
        if code.requestType != .emailSignIn { response.email = code.requestType == .verifyAndChangeEmail ? code.newEmail : code.email }
        if code.requestType == .verifyAndChangeEmail || code.requestType == .recoverEmail {
            response.newEmail = code.requestType == .verifyAndChangeEmail ? code.email : code.newEmail
        }
        return response
    }

    func applyCode(_ code: String) async throws -> SetAccountInfoResponse {
        let record = try await liveCode(code)
        let found = try await codeAccount(record)
        if found.disabled { throw IdentityToolkitError.userDisabled }
        // The code is spent with its change, made to the account as it is at the write.
        let admission = MailAdmission()
        return try await retryingLostRaces(on: found) { read in try await apply(record, to: read, admission: admission) }
    }

    /// The account a verify, change or recover code is for.
    private func codeAccount(_ record: OobCodeRecord) async throws -> UserRecord {
        switch record.requestType {
        case .verifyEmail:
            guard let found = try await store.user(tenantID: record.tenantID, email: record.email) else { throw IdentityToolkitError.userNotFound }
            return found
        case .verifyAndChangeEmail, .recoverEmail:
            guard let localID = record.localID, let found = try await store.user(tenantID: record.tenantID, localID: localID) else {
                throw IdentityToolkitError.userNotFound
            }
            return found
        case .passwordReset, .emailSignIn, .revertSecondFactorAddition:
            throw IdentityToolkitError.invalidOobCode
        }
    }

    /// The code's change, written to the account `read` if it is still as read, in the
    /// transaction that spends the code (with, for an address change, the old address's undo
    /// code and its mail).
    private func apply(_ record: OobCodeRecord, to read: UserRecord, admission: MailAdmission) async throws -> SetAccountInfoResponse {
        if read.disabled { throw IdentityToolkitError.userDisabled }
        var user = read
        var writes = AuthWrites(spending: spending(record.code))
        var notices: [IssuedCode] = []
        switch record.requestType {
        case .verifyEmail:
            user.emailVerified = true
        case .verifyAndChangeEmail:
            user.email = record.email
            user.emailVerified = true
            if let oldEmail = read.email {
                // The notice speaks the language the change was confirmed in (the confirming link's `lang`).
                let language = try? LinkParser.parse(url: record.link).get().languageCode
                notices.append(
                    try await recoverNotice(
                        to: oldEmail, newEmail: record.email, user: user, language: language, client: "",
                        admission: admission))
            }
        case .recoverEmail:
            user.email = record.email
            user.emailVerified = true
        case .passwordReset, .emailSignIn, .revertSecondFactorAddition:
            break
        }
        writes.updatedUsers = [AuthWrites.Update(user, readAs: read)]
        try await commit(writes, issuing: notices)
        var response = accountSummary(user)
        if record.requestType == .recoverEmail { response.newEmail = record.newEmail }
        return response
    }

    /// The code an address change leaves the old address, to undo it, and its mail, for the
    /// caller to commit with the change. The mail is sent within the old mailbox's budget (and the
    /// changing client's): changes in a row cannot bury a victim in notices. Over budget the code
    /// is still made (an earlier notice's link undoes the first change).
    /// `admission` decides once per request, however often a lost race runs the operation again.
    /// The notice speaks `language`, else the account's own.
    func recoverNotice(
        to oldEmail: String, newEmail: String, user: UserRecord, language: String?, client: String,
        admission: MailAdmission
    ) async throws -> IssuedCode {
        var mailed = true
        if let outbox { mailed = await admission.decide { await outbox.admit(oldEmail, client: client) } }
        return try newCode(
            .recoverEmail, email: oldEmail, newEmail: newEmail, localID: user.localID, settings: ActionCodeSettings(),
            context: CallContext(
                tenantID: user.tenantID, languageCode: language.flatMap { Languages.spoken(Substring($0)) } ?? user.languageCode),
            mailed: mailed)
    }
}

/// Whether a request's notice may be mailed: asked of the mail budgets once, the first time, and
/// remembered for the request's later runs (a lost race runs the operation again; the budgets
/// must not count the one mail three times).
final class MailAdmission: Sendable {
    private let decided = Mutex<Bool?>(nil)

    func decide(_ ask: () async -> Bool) async -> Bool {
        if let known = decided.withLock({ $0 }) { return known }
        let answer = await ask()
        decided.withLock { $0 = answer }
        return answer
    }
}
