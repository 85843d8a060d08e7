/// Out-of-band codes: issuing them (`sendOobCode`, and the recover-email code an address change
/// leaves), checking and spending them (`resetPassword`, `update` with a code), and the outbox.
extension AccountService {
    func sendOobCode(_ body: RequestBody, _ context: CallContext) async throws -> GetOobConfirmationCodeResponse {
        guard let typeName = body.string("requestType") else { throw IdentityToolkitError.missingRequestType }
        guard let type = OobRequestType(rawValue: typeName), type != .recoverEmail, type != .revertSecondFactorAddition else {
            throw IdentityToolkitError(.invalidRequestType, detail: typeName)
        }
        let returnLink = body.bool("returnOobLink") ?? false
        if returnLink && !context.isAdmin { throw IdentityToolkitError.insufficientPermission }
        let settings = try ActionCodeSettings(body, backend: self.settings, logger: logger)

        var email: String
        var newEmail: String?
        var localID: String?
        switch type {
        case .passwordReset, .emailSignIn:
            guard let raw = body.string("email") else { throw IdentityToolkitError.missingEmail }
            email = try normalizedEmail(raw)
            if type == .emailSignIn && settings.continueURL == nil { throw IdentityToolkitError.missingContinueURI }
            // Before the account is looked up: an address with none must meet the limit alike, or the limit would tell.
            try await admitMail(to: email, unless: returnLink)
            let user = try await store.user(tenantID: context.tenantID, email: email)
            localID = user?.localID
            if type == .passwordReset && user == nil {
                // With enumeration protection a client learns nothing; an admin asked for a link and must hear why there is none.
                if hidesAccounts && !context.isAdmin {
                    return GetOobConfirmationCodeResponse(email: email)
                }
                throw IdentityToolkitError.emailNotFound
            }
        case .verifyEmail, .verifyAndChangeEmail:
            let user: UserRecord
            if let idToken = body.string("idToken") {
                user = try await authenticatedUser(idToken: idToken, context: context)
            } else if context.isAdmin, let raw = body.string("email") {
                guard let found = try await store.user(tenantID: context.tenantID, email: try normalizedEmail(raw)) else {
                    throw IdentityToolkitError.userNotFound
                }
                user = found
            } else {
                throw IdentityToolkitError.missingIDToken
            }
            guard let userEmail = user.email else { throw IdentityToolkitError.missingEmail }
            email = userEmail
            localID = user.localID
            if type == .verifyAndChangeEmail {
                guard let raw = body.string("newEmail") else { throw IdentityToolkitError(.missingNewEmail) }
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
        if type == .verifyEmail || type == .verifyAndChangeEmail { try await admitMail(to: email, unless: returnLink) }
        let record = try await issueCode(type, email: email, newEmail: newEmail, localID: localID, settings: settings, context: context,
                                         mailed: !returnLink)
        var response = GetOobConfirmationCodeResponse(email: type == .verifyAndChangeEmail ? (newEmail ?? email) : email)
        if returnLink {
            response.oobCode = record.code
            response.oobLink = record.link
        }
        return response
    }

    /// A mail bomb through the SDKs' own call meets the same per-recipient budget as the email
    /// action API; an admin who takes the link sends no mail.
    private func admitMail(to address: String, unless returnLink: Bool) async throws {
        if !returnLink, let outbox, await !outbox.admit(address) { throw IdentityToolkitError(.tooManyAttemptsTryLater) }
    }

    /// Checks a code without spending it (`accounts:resetPassword` with only `oobCode`), or resets the password.
    func resetPassword(_ body: RequestBody, _ context: CallContext) async throws -> ResetPasswordResponse {
        guard let code = body.string("oobCode") else { throw IdentityToolkitError.missingOobCode }
        let record = try await liveCode(code)
        guard let newPassword = body.string("newPassword") else {
            var response = ResetPasswordResponse(requestType: record.requestType.rawValue)
            // As the emulator does: an email-link sign-in code does not reveal the address it was sent to.
            if record.requestType != .emailSignIn { response.email = record.requestType == .verifyAndChangeEmail ? record.newEmail : record.email }
            if record.requestType == .verifyAndChangeEmail || record.requestType == .recoverEmail {
                response.newEmail = record.requestType == .verifyAndChangeEmail ? record.email : record.newEmail
            }
            return response
        }
        guard record.requestType == .passwordReset else { throw IdentityToolkitError.invalidOobCode }
        try checkStrength(newPassword)
        guard var user = try await store.user(tenantID: record.tenantID, email: record.email) else {
            throw IdentityToolkitError.emailNotFound
        }
        if user.disabled { throw IdentityToolkitError.userDisabled }
        _ = try await redeem(code)
        let now = clock.nowMilliseconds()
        user.passwordHash = try await passwords.hash(newPassword)
        user.passwordUpdatedAt = now
        user.emailVerified = true
        user.validSince = now / 1000
        try await update(user)
        return ResetPasswordResponse(requestType: record.requestType.rawValue, email: record.email)
    }

    func applyCode(_ code: String) async throws -> SetAccountInfoResponse {
        let record = try await liveCode(code)
        var user: UserRecord
        switch record.requestType {
        case .verifyEmail:
            guard let found = try await store.user(tenantID: record.tenantID, email: record.email) else { throw IdentityToolkitError.userNotFound }
            user = found
        case .verifyAndChangeEmail, .recoverEmail:
            guard let localID = record.localID, let found = try await store.user(tenantID: record.tenantID, localID: localID) else {
                throw IdentityToolkitError.userNotFound
            }
            user = found
        case .passwordReset, .emailSignIn, .revertSecondFactorAddition:
            throw IdentityToolkitError.invalidOobCode
        }
        if user.disabled { throw IdentityToolkitError.userDisabled }
        _ = try await redeem(code)
        switch record.requestType {
        case .verifyEmail:
            user.emailVerified = true
        case .verifyAndChangeEmail:
            let oldEmail = user.email
            user.email = record.email
            user.emailVerified = true
            try await update(user)
            if let oldEmail {
                // The notice speaks the language the change was confirmed in (the confirming link's `lang`).
                let language = try? LinkParser.parse(url: record.link).get().languageCode
                _ = try await issueCode(.recoverEmail, email: oldEmail, newEmail: record.email, localID: user.localID,
                                        settings: ActionCodeSettings(), context: CallContext(tenantID: user.tenantID, languageCode: language))
            }
            return accountSummary(user)
        case .recoverEmail:
            user.email = record.email
            user.emailVerified = true
        case .passwordReset, .emailSignIn, .revertSecondFactorAddition:
            break
        }
        try await update(user)
        var response = accountSummary(user)
        if record.requestType == .recoverEmail { response.newEmail = record.newEmail }
        return response
    }

    func listCodes(projectID: String) async throws -> OobCodesResponse {
        let codes = try await store.codes(projectID: projectID)
        return OobCodesResponse(oobCodes: codes.map { code in
            OobCodesResponse.Code(email: code.email, oobCode: code.code, oobLink: code.link, requestType: code.requestType.rawValue)
        })
    }

    func issueCode(_ type: OobRequestType, email: String, newEmail: String?, localID: String?, settings: ActionCodeSettings,
                           context: CallContext, mailed: Bool = true) async throws -> OobCodeRecord {
        let now = clock.nowMilliseconds()
        let code = RandomToken.make(bytes: 24)  // 192 bits
        let encoder = ActionLinkEncoder(baseURL: self.settings.publicBaseURL)
        let parameters = ActionLinkEncoder.Parameters(
            apiKey: self.settings.apiKey, mode: type.mode.rawValue, oobCode: code, continueURL: settings.continueURL,
            languageCode: context.languageCode, tenantID: context.tenantID.isEmpty ? nil : context.tenantID)
        let link = settings.opensInApp ? encoder.appLink(parameters) : encoder.actionURL(parameters)
        let record = OobCodeRecord(
            code: code, projectID: self.settings.projectID, tenantID: context.tenantID, requestType: type, email: email,
            newEmail: newEmail, localID: localID, link: link, createdAt: now,
            expiresAt: now + Int64(self.settings.codeLifetimeSeconds) * 1000)
        try await store.insertCode(record)
        if mailed, let outbox, let recipient = MailAddress(email) {
            try await outbox.send(MailComposer.Content(kind: MailKind(type), language: context.languageCode, recipient: recipient, email: email,
                                                       newEmail: newEmail, link: link))
        }
        switch self.settings.mode {
        case .development:
            // The emulator's contract: no mail is sent, this line is the mail.
            logger.info("link for \(email)", metadata: ["type": .string(type.rawValue), "link": .string(link)])
        case .deployment:
            // Neither the address nor the link: whoever reads the logs must not be able to use the code.
            logger.info("code issued", metadata: ["type": .string(type.rawValue)])
        }
        return record
    }

    /// The code if it can still be used; otherwise the error saying why.
    func liveCode(_ code: String) async throws -> OobCodeRecord {
        guard let record = try await store.code(code) else { throw IdentityToolkitError.invalidOobCode }
        if record.expiresAt <= clock.nowMilliseconds() { throw IdentityToolkitError.expiredOobCode }
        return record
    }

    func redeem(_ code: String) async throws -> OobCodeRecord {
        switch try await store.redeemCode(code, now: clock.nowMilliseconds()) {
        case .redeemed(let record): return record
        case .expired: throw IdentityToolkitError.expiredOobCode
        case .invalid: throw IdentityToolkitError.invalidOobCode
        }
    }
}
