import LinkDomainCore
import LinkDomainStorage
import Logging

/// Out-of-band codes: issuing them (`sendOobCode`), listing them (the emulator's outbox), and
/// reading them; spending them is ``AccountService`` + SpendingCodes.
extension AccountService {
    package func sendOobCode(_ request: SendOobCodeRequest, _ context: CallContext) async throws -> GetOobConfirmationCodeResponse {
        guard let typeName = request.requestType else { throw IdentityToolkitError.missingRequestType }
        guard let type = OobRequestType(rawValue: typeName), type != .recoverEmail, type != .revertSecondFactorAddition else {
            throw IdentityToolkitError(.invalidRequestType, detail: typeName)
        }
        let returnLink = request.returnOobLink ?? false
        if returnLink && !context.isAdmin { throw IdentityToolkitError.insufficientPermission }
        let settings = try ActionCodeSettings(request.settings, backend: self.settings, logger: logger)

        var email: String
        var newEmail: String?
        var account: UserRecord?
        // Only the account's own signed-in app may set the language its mails speak: anyone may ask
        // for a reset or a sign-in link, and must not change what the account's next mails say.
        var signedIn = false
        switch type {
        case .passwordReset, .emailSignIn:
            guard let raw = request.email else { throw IdentityToolkitError.missingEmail }
            email = try normalizedEmail(raw)
            if type == .emailSignIn && settings.continueURL == nil { throw IdentityToolkitError.missingContinueURI }
            // Before the account is looked up: an address with none must meet the limit alike, or the limit would tell.
            try await admitMail(to: email, unless: returnLink, context)
            if type == .passwordReset && hidesAccounts && !context.isAdmin {
                // The answer is the same whether or not the address has an account; so is its
                // time: the lookup and the mail come after it.
                pendingWork.start { [self, email] in await mailReset(to: email, settings: settings, context: context) }
                return GetOobConfirmationCodeResponse(email: email)
            }
            let user = try await store.user(tenantID: context.tenantID, email: email)
            account = user
            if type == .passwordReset && user == nil {
                // With enumeration protection a client learns nothing; an admin asked for a link and must hear why there is none.
                if hidesAccounts && !context.isAdmin {
                    return GetOobConfirmationCodeResponse(email: email)
                }
                throw IdentityToolkitError.emailNotFound
            }
        case .verifyEmail, .verifyAndChangeEmail:
            let user: UserRecord
            if let idToken = request.idToken {
                user = try await authenticatedUser(idToken: idToken, context: context)
                signedIn = true
            } else if context.isAdmin, let raw = request.email {
                guard let found = try await store.user(tenantID: context.tenantID, email: try normalizedEmail(raw)) else {
                    throw IdentityToolkitError.userNotFound
                }
                user = found
            } else {
                throw IdentityToolkitError.missingIDToken
            }
            guard let userEmail = user.email else { throw IdentityToolkitError.missingEmail }
            email = userEmail
            account = user
            if type == .verifyAndChangeEmail {
                guard let raw = request.newEmail else { throw IdentityToolkitError(.missingNewEmail) }
                let target = try normalizedEmail(raw)
                if try await store.user(tenantID: context.tenantID, email: target) != nil { throw IdentityToolkitError.emailExists }
                newEmail = target
                // The code goes to the new address: following it proves the user owns it.
                email = target
                newEmail = userEmail
            }
        case .recoverEmail, .revertSecondFactorAddition:
            // Codes the backend makes itself (an email change, a second factor), never on request.
            throw IdentityToolkitError(.invalidRequestType, detail: typeName)
        }
        // An admin who asks for the link sends the mail itself.
        if type == .verifyEmail || type == .verifyAndChangeEmail { try await admitMail(to: email, unless: returnLink, context) }
        let record = try await issueCode(
            type, email: email, newEmail: newEmail, account: account, recordingLanguage: signedIn, settings: settings, context: context,
            mailed: !returnLink)
        var response = GetOobConfirmationCodeResponse(email: type == .verifyAndChangeEmail ? (newEmail ?? email) : email)
        if returnLink {
            response.oobCode = record.code
            response.oobLink = record.link
        }
        return response
    }

    /// A password reset's code and mail, made after the answer, for an address with an account.
    private func mailReset(to email: String, settings: ActionCodeSettings, context: CallContext) async {
        do {
            guard let user = try await store.user(tenantID: context.tenantID, email: email) else { return }
            _ = try await issueCode(.passwordReset, email: email, newEmail: nil, account: user, settings: settings, context: context)
        } catch {
            logger.error("password reset not sent", metadata: ["error": .string(String(describing: type(of: error)))])
        }
    }

    /// A mail bomb through the SDKs' own call meets the same budgets as the email action API: the
    /// recipient's mailbox and the asking client's; an admin who takes the link sends no mail.
    private func admitMail(to address: String, unless returnLink: Bool, _ context: CallContext) async throws {
        if !returnLink, let outbox, await !outbox.admit(address, client: context.isAdmin ? "" : context.clientAddress) {
            throw IdentityToolkitError(.tooManyAttemptsTryLater)
        }
    }

    package func listCodes(projectID: String) async throws -> OobCodesResponse {
        // Codes requests asked for before this listing are in it, even those made after their answers.
        await pendingWork.drain()
        let codes = try await store.codes(projectID: projectID)
        return OobCodesResponse(
            oobCodes: codes.map { code in
                OobCodesResponse.Code(email: code.email, oobCode: code.code, oobLink: code.link, requestType: code.requestType.rawValue)
            })
    }

    /// Makes a code and its mail (unless not `mailed`) in one commit: neither exists without the other.
    ///
    /// The mail speaks the request's language, else the language `account` last asked in. When
    /// `recordingLanguage` (the account's own signed-in app asks), a language spoken here is
    /// recorded on the account in the same commit.
    func issueCode(
        _ type: OobRequestType, email: String, newEmail: String?, account: UserRecord?, recordingLanguage: Bool = false,
        settings: ActionCodeSettings, context: CallContext, mailed: Bool = true
    ) async throws -> OobCodeRecord {
        // One language for the link's `lang` and the mail, chosen once.
        let spoken = context.spokenLanguage
        var context = context
        context.languageCode = spoken ?? account?.languageCode ?? self.settings.defaultLanguage
        var writes = AuthWrites()
        if recordingLanguage, let account, let spoken, spoken != account.languageCode {
            var updated = account
            updated.languageCode = spoken
            writes.updatedUsers = [AuthWrites.Update(updated, readAs: account)]
        }
        let issued = try newCode(
            type, email: email, newEmail: newEmail, localID: account?.localID, settings: settings, context: context, mailed: mailed)
        do {
            try await commit(writes, issuing: [issued])
        } catch  where !writes.updatedUsers.isEmpty {
            // The account changed since it was read: the code and its mail matter more than
            // remembering the language, so they are stored without it (the commit is all or nothing).
            try await commit(AuthWrites(), issuing: [issued])
        }
        return issued.record
    }

    /// A new code and the mail that carries it, written nowhere yet: the caller commits both with
    /// whatever else its action writes, then ``announce(_:)``s the code.
    func newCode(
        _ type: OobRequestType, email: String, newEmail: String?, localID: String?, settings: ActionCodeSettings,
        context: CallContext, mailed: Bool = true
    ) throws -> IssuedCode {
        let now = clock.nowMilliseconds()
        let code = RandomToken.make(bytes: 24)  // 192 bits
        let encoder = ActionLinkEncoder(baseURL: self.settings.publicBaseURL)
        let parameters = ActionLinkEncoder.Parameters(
            apiKey: self.settings.apiKey, mode: type.mode.rawValue, oobCode: code, continueURL: settings.continueURL,
            languageCode: context.languageCode ?? self.settings.defaultLanguage, tenantID: context.tenantID.isEmpty ? nil : context.tenantID)
        let link = settings.opensInApp ? encoder.appLink(parameters) : encoder.actionURL(parameters)
        let record = OobCodeRecord(
            code: code, projectID: self.settings.projectID, tenantID: context.tenantID, requestType: type, email: email,
            newEmail: newEmail, localID: localID, link: link, createdAt: now,
            expiresAt: now + Int64(self.settings.codeLifetimeSeconds) * 1000, askedByApp: settings.namesApp)
        var mails: [QueuedMail] = []
        if mailed, let outbox, let recipient = MailAddress(email) {
            mails.append(
                try outbox.prepare(
                    MailComposer.Content(
                        kind: MailKind(type), language: context.languageCode ?? self.settings.defaultLanguage, recipient: recipient,
                        email: email, newEmail: newEmail, link: link, validForSeconds: self.settings.codeLifetimeSeconds)))
        }
        return IssuedCode(record: record, mails: mails)
    }

    /// Says that a code was made, once it is stored.
    func announce(_ record: OobCodeRecord) {
        switch settings.mode {
        case .development:
            // The emulator's contract: no mail is sent, this line is the mail.
            logger.info("link for \(record.email)", metadata: ["type": .string(record.requestType.rawValue), "link": .string(record.link)])
        case .deployment:
            // Neither the address nor the link: whoever reads the logs must not be able to use the code.
            logger.info("code issued", metadata: ["type": .string(record.requestType.rawValue)])
        }
    }

    /// Commits one action's writes (``AuthWrites``) with the codes it issues and their mails: a
    /// code it spends that is no longer live is the client's error, and nothing was written; once
    /// stored, the issued codes are ``announce(_:)``d and the mails wake the sender.
    func commit(_ writes: AuthWrites, issuing issued: [IssuedCode] = []) async throws {
        var writes = writes
        for code in issued {
            writes.insertedCodes.append(code.record)
            writes.mails += code.mails
        }
        let outcome: AuthCommit
        do {
            outcome = try await store.commit(writes)
        } catch {
            throw Self.refusal(error)
        }
        switch outcome {
        case .committed:
            outbox?.didQueue(writes.mails)
            for code in issued { announce(code.record) }
        case .codeInvalid: throw IdentityToolkitError.invalidOobCode
        case .codeExpired: throw IdentityToolkitError.expiredOobCode
        }
    }

    /// What spending `code` now is, for ``AuthWrites/spending``.
    func spending(_ code: String) -> AuthWrites.Spending {
        AuthWrites.Spending(code: code, now: clock.nowMilliseconds())
    }

    /// The code if it can still be used; otherwise the error saying why.
    func liveCode(_ code: String) async throws -> OobCodeRecord {
        guard let record = try await store.code(code) else { throw IdentityToolkitError.invalidOobCode }
        if record.expiresAt <= clock.nowMilliseconds() { throw IdentityToolkitError.expiredOobCode }
        return record
    }

}

/// A code and the mail that carries it (none when an admin took the link, or mail is off).
struct IssuedCode: Sendable {
    var record: OobCodeRecord
    var mails: [QueuedMail]
}
