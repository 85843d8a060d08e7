/// Spending out-of-band codes: `resetPassword` (and checking a code without spending it), `update`
/// with a code (verify, change or recover an address), and the recover-email code a change leaves.
extension AccountService {
    /// Checks a code without spending it (`accounts:resetPassword` with only `oobCode`), or resets the password.
    func resetPassword(_ body: RequestBody, _ context: CallContext) async throws -> ResetPasswordResponse {
        guard let code = body.string("oobCode") else { throw IdentityToolkitError.missingOobCode }
        let record = try await liveCode(code)
        guard let newPassword = body.string("newPassword") else { return Self.checked(record) }
        guard record.requestType == .passwordReset else { throw IdentityToolkitError.invalidOobCode }
        try checkStrength(newPassword)
        guard let found = try await store.user(tenantID: record.tenantID, email: record.email) else {
            throw IdentityToolkitError.emailNotFound
        }
        if found.disabled { throw IdentityToolkitError.userDisabled }
        _ = try await redeem(code)
        let passwordHash = try await passwords.hash(newPassword)
        // The code is spent: the new password is written to the account as it is at the write.
        try await retryingLostRaces(on: found) { read in
            var user = read
            let now = clock.nowMilliseconds()
            user.passwordHash = passwordHash
            user.passwordUpdatedAt = now
            user.emailVerified = true
            user.revokeSessions(at: now)
            try await update(user, readAs: read)
        }
        return ResetPasswordResponse(requestType: record.requestType.rawValue, email: record.email)
    }

    /// The check-only answer for a live code read without waiting (``AuthStore/codeWithoutWaiting(_:)``),
    /// for the event loop's form; nil when that read has no live code to give (the caller then
    /// makes the check the usual way, which says why).
    func checkWithoutWaiting(_ code: String) -> ResetPasswordResponse? {
        guard let record = store.codeWithoutWaiting(code), record.expiresAt > clock.nowMilliseconds() else { return nil }
        return Self.checked(record)
    }

    /// What checking a live code answers.
    private static func checked(_ record: OobCodeRecord) -> ResetPasswordResponse {
        var response = ResetPasswordResponse(requestType: record.requestType.rawValue)
        // As the emulator does: an email-link sign-in code does not reveal the address it was sent to.
        if record.requestType != .emailSignIn { response.email = record.requestType == .verifyAndChangeEmail ? record.newEmail : record.email }
        if record.requestType == .verifyAndChangeEmail || record.requestType == .recoverEmail {
            response.newEmail = record.requestType == .verifyAndChangeEmail ? record.email : record.newEmail
        }
        return response
    }

    func applyCode(_ code: String) async throws -> SetAccountInfoResponse {
        let record = try await liveCode(code)
        let found = try await codeAccount(record)
        if found.disabled { throw IdentityToolkitError.userDisabled }
        _ = try await redeem(code)
        // The code is spent: its change is made to the account as it is at the write.
        return try await retryingLostRaces(on: found) { read in try await apply(record, to: read) }
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

    /// A spent code's change, written to the account `read` if it is still as read.
    private func apply(_ record: OobCodeRecord, to read: UserRecord) async throws -> SetAccountInfoResponse {
        var user = read
        switch record.requestType {
        case .verifyEmail:
            user.emailVerified = true
        case .verifyAndChangeEmail:
            let oldEmail = user.email
            user.email = record.email
            user.emailVerified = true
            try await update(user, readAs: read)
            if let oldEmail {
                // The notice speaks the language the change was confirmed in (the confirming link's `lang`).
                let language = try? LinkParser.parse(url: record.link).get().languageCode
                try await leaveRecoverNotice(to: oldEmail, newEmail: record.email, user: user, language: language, client: "")
            }
            return accountSummary(user)
        case .recoverEmail:
            user.email = record.email
            user.emailVerified = true
        case .passwordReset, .emailSignIn, .revertSecondFactorAddition:
            break
        }
        try await update(user, readAs: read)
        var response = accountSummary(user)
        if record.requestType == .recoverEmail { response.newEmail = record.newEmail }
        return response
    }

    /// The code an address change leaves the old address, to undo it. Its mail is sent within the
    /// old mailbox's budget (and the changing client's): changes in a row cannot bury a victim in
    /// notices. Over budget the code is still made (an earlier notice's link undoes the first change).
    func leaveRecoverNotice(to oldEmail: String, newEmail: String, user: UserRecord, language: String?, client: String) async throws {
        var mailed = true
        if let outbox { mailed = await outbox.admit(oldEmail, client: client) }
        _ = try await issueCode(.recoverEmail, email: oldEmail, newEmail: newEmail, localID: user.localID, settings: ActionCodeSettings(),
                                context: CallContext(tenantID: user.tenantID, languageCode: language), mailed: mailed)
    }
}
