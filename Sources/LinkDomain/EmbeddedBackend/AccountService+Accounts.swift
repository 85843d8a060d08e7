import LinkDomainCore
import LinkDomainStorage

/// Creating, changing and deleting accounts: `signUp` (and the admin create call, and an anonymous
/// account's upgrade), `update` without a code, `delete`.
extension AccountService {
    package func signUp(_ request: SignUpRequest, _ context: CallContext) async throws -> SignUpResponse {
        try refuse(request.unsupportedField)
        if request.sendsLocalID && (!context.isAdmin || request.sendsIDToken) {
            throw IdentityToolkitError(.unexpectedParameter, detail: "User ID")
        }
        // An empty string is a value the client chose, not an absent field.
        if request.email == "" { throw IdentityToolkitError.invalidEmail }
        let email = try request.email.map(normalizedEmail)
        let password = request.password.flatMap { $0.isEmpty ? nil : $0 }
        if !context.isAdmin {
            if email == nil && (password != nil || request.sendsIDToken) { throw IdentityToolkitError.missingEmail }
            if email != nil && password == nil { throw IdentityToolkitError.missingPassword }
        }
        if let password { try checkStrength(password) }
        let now = clock.nowMilliseconds()
        if !context.isAdmin, let idToken = request.idToken, let email, let password {
            return try await retryingLostRaces {
                try await upgrade(
                    try await authenticatedUser(idToken: idToken, context: context), email: email, password: password,
                    now: clock.nowMilliseconds())
            }
        }
        let localID = context.isAdmin ? (request.localID ?? RandomToken.localID()) : RandomToken.localID()
        var user = UserRecord(
            tenantID: context.tenantID, localID: localID, email: email,
            emailVerified: context.isAdmin ? (request.emailVerified ?? false) : false,
            passwordHash: try await password.asyncMap(passwords.hash), passwordUpdatedAt: password == nil ? nil : now,
            displayName: request.displayName, photoURL: request.photoURL,
            disabled: context.isAdmin ? (request.disabled ?? false) : false,
            createdAt: now, lastLoginAt: context.isAdmin ? nil : now, validSince: now / 1000)
        // The account's own app speaks for it; an admin's tools do not.
        user.languageCode = context.isAdmin ? nil : context.spokenLanguage
        if context.isAdmin {
            user.phoneNumber = try request.phoneNumber.map(AccountAttributes.phoneNumber)
            user.customAttributes = try request.customAttributes.flatMap(AccountAttributes.customClaims)
            if try await store.user(tenantID: context.tenantID, localID: localID) != nil { throw IdentityToolkitError.duplicateLocalID }
        } else {
            user.lastRefreshAt = now
        }
        try await insert(user)
        var response = SignUpResponse(localId: user.localID, email: user.email, displayName: user.displayName)
        if !context.isAdmin { response.add(try await newSession(for: user, provider: Self.provider(of: user), now: now)) }
        return response
    }

    /// `signUp` with an anonymous user's ID token, an email and a password: the same account
    /// (same `localId`) gains them, as the JS SDK's `linkWithCredential(EmailAuthProvider...)` expects.
    private func upgrade(_ anonymous: UserRecord, email: String, password: String, now: Int64) async throws -> SignUpResponse {
        var user = anonymous
        if user.email != email, try await store.user(tenantID: user.tenantID, email: email) != nil { throw IdentityToolkitError.emailExists }
        user.email = email
        user.emailVerified = false
        user.passwordHash = try await passwords.hash(password)
        user.passwordUpdatedAt = now
        user.lastLoginAt = now
        user.lastRefreshAt = now
        try await update(user, readAs: anonymous)
        var response = SignUpResponse(localId: user.localID, email: user.email, displayName: user.displayName)
        response.add(try await newSession(for: user, provider: "password", now: now))
        return response
    }

    /// `accounts:update`: applies a code (verify, recover or change email), or changes an account.
    func update(_ request: UpdateAccountRequest, _ context: CallContext) async throws -> SetAccountInfoResponse {
        if let code = request.oobCode { return try await applyCode(code) }
        try refuse(request.unsupportedField)
        if !context.isAdmin && request.customAttributes != nil { throw IdentityToolkitError.insufficientPermission }
        let admission = MailAdmission()
        return try await retryingLostRaces { try await change(request, context, admission) }
    }

    /// One run of ``update(_:_:)`` without a code: read, change, write if nothing came between.
    private func change(_ request: UpdateAccountRequest, _ context: CallContext, _ admission: MailAdmission) async throws -> SetAccountInfoResponse {
        let read = try await targetUser(localID: request.localID, idToken: request.idToken, context)
        var user = read
        let now = clock.nowMilliseconds()
        let oldEmail = user.email
        var revokeSessions = false
        if let raw = request.email {
            let email = try normalizedEmail(raw)
            if email != user.email {
                if try await store.user(tenantID: user.tenantID, email: email) != nil { throw IdentityToolkitError.emailExists }
                user.email = email
                user.emailVerified = context.isAdmin ? (request.emailVerified ?? false) : false
                revokeSessions = !context.isAdmin
            }
        }
        if let password = request.password {
            try checkStrength(password)
            user.passwordHash = try await passwords.hash(password)
            user.passwordUpdatedAt = now
            revokeSessions = true
        }
        user.displayName = request.displayName.applied(to: user.displayName)
        user.photoURL = request.photoURL.applied(to: user.photoURL)
        for attribute in request.deleteAttributes {
            switch attribute {
            case .displayName: user.displayName = nil
            case .photoURL: user.photoURL = nil
            case .password: user.passwordHash = nil
            case .email: user.email = nil
            }
        }
        removeProviders(request.deleteProviders, from: &user)
        // A user who sends `validSince` ends their other sessions (the value is not theirs to choose), as the emulator does.
        if !context.isAdmin && request.validSince != .absent { revokeSessions = true }
        if context.isAdmin {
            if let verified = request.emailVerified { user.emailVerified = verified }
            if let disabled = request.disabled { user.disabled = disabled }
            if let validSince = try request.validSince.within(Self.validSinceRange, else: IdentityToolkitError(.invalidValidSince)) {
                user.validSince = validSince
            }
            if let phone = request.phoneNumber { user.phoneNumber = phone.isEmpty ? nil : try AccountAttributes.phoneNumber(phone) }
            if let claims = request.customAttributes?.jsonText { user.customAttributes = try AccountAttributes.customClaims(claims) }
        }
        if revokeSessions { user.revokeSessions(at: now) }
        let newSessionWanted = !context.isAdmin && (revokeSessions || (request.returnSecureToken ?? false))
        if newSessionWanted { user.lastRefreshAt = now }
        var writes = AuthWrites(updatedUsers: [AuthWrites.Update(user, readAs: read)])
        var notices: [IssuedCode] = []
        if let oldEmail, oldEmail != user.email, let newEmail = user.email {
            // As Firebase mails the old address a way to undo the change, stored with the change.
            notices.append(
                try await recoverNotice(
                    to: oldEmail, newEmail: newEmail, user: user, language: context.spokenLanguage,
                    client: context.isAdmin ? "" : context.clientAddress, admission: admission))
        }
        // The new session is stored with the change: a fault cannot end every session and leave none.
        let session = newSessionWanted ? sessionRecord(for: user, provider: Self.provider(of: user), now: now) : nil
        if let session { writes.refreshTokens = [session] }
        try await commit(writes, issuing: notices)
        var response = accountSummary(user)
        if let session { response.add(try await sessionTokens(for: user, session)) }
        return response
    }

    /// `deleteProvider`: `phone` drops the number; `password` the password and the address it
    /// signs in with; any other provider ID an imported federated identity.
    private func removeProviders(_ providers: [String], from user: inout UserRecord) {
        for provider in providers {
            switch provider {
            case "phone":
                user.phoneNumber = nil
            case "password":
                user.passwordHash = nil
                user.email = nil
                user.emailVerified = false
                user.emailLinkSignIn = false
            default:
                user.providerData = ImportedProviders.encode(ImportedProviders.decode(user.providerData).filter { $0.providerId != provider })
            }
        }
    }

    func delete(_ request: DeleteAccountRequest, _ context: CallContext) async throws -> DeleteAccountResponse {
        // With admin credentials the account is named by `localId`; an ID token beside them names
        // nothing (the emulator's "accounts:delete should error if missing localId when OAuth
        // credentials are present").
        if context.isAdmin, request.localID == nil { throw IdentityToolkitError.missingLocalID }
        let user = try await targetUser(localID: request.localID, idToken: request.idToken, context)
        guard try await store.deleteUser(tenantID: user.tenantID, localID: user.localID) else { throw IdentityToolkitError.userNotFound }
        return DeleteAccountResponse()
    }

    /// What this backend does not do (second factors, linking federated providers) is refused,
    /// never accepted and dropped.
    func refuse(_ unsupportedField: String?) throws(IdentityToolkitError) {
        if let unsupportedField {
            throw IdentityToolkitError(.operationNotAllowed, detail: "\(unsupportedField) is not supported by this backend")
        }
    }
}
