/// Creating, changing and deleting accounts: `signUp` (and the admin create call, and an anonymous
/// account's upgrade), `update` without a code, `delete`.
extension AccountService {
    package func signUp(_ body: RequestBody, _ context: CallContext) async throws -> SignUpResponse {
        try refuseUnsupported(body)
        if body.has("localId") && (!context.isAdmin || body.has("idToken")) {
            throw IdentityToolkitError(.unexpectedParameter, detail: "User ID")
        }
        // An empty string is a value the client chose, not an absent field.
        let rawEmail = body.rawString("email"), rawPassword = body.rawString("password")
        if rawEmail == "" { throw IdentityToolkitError.invalidEmail }
        let email = try rawEmail.map(normalizedEmail)
        let password = rawPassword.flatMap { $0.isEmpty ? nil : $0 }
        if !context.isAdmin {
            if email == nil && (password != nil || body.has("idToken")) { throw IdentityToolkitError.missingEmail }
            if email != nil && password == nil { throw IdentityToolkitError.missingPassword }
        }
        if let password { try checkStrength(password) }
        let now = clock.nowMilliseconds()
        if !context.isAdmin, let idToken = body.string("idToken"), let email, let password {
            return try await retryingLostRaces {
                try await upgrade(try await authenticatedUser(idToken: idToken, context: context), email: email, password: password,
                                  now: clock.nowMilliseconds())
            }
        }
        let localID = context.isAdmin ? (body.string("localId") ?? RandomToken.localID()) : RandomToken.localID()
        var user = UserRecord(
            tenantID: context.tenantID, localID: localID, email: email,
            emailVerified: context.isAdmin ? (body.bool("emailVerified") ?? false) : false,
            passwordHash: try await password.asyncMap(passwords.hash), passwordUpdatedAt: password == nil ? nil : now,
            displayName: body.string("displayName"), photoURL: body.string("photoUrl"),
            disabled: context.isAdmin ? (body.bool("disabled") ?? false) : false,
            createdAt: now, lastLoginAt: context.isAdmin ? nil : now, validSince: now / 1000)
        if context.isAdmin {
            user.phoneNumber = try body.string("phoneNumber").map(AccountAttributes.phoneNumber)
            user.customAttributes = try body.jsonText("customAttributes").flatMap(AccountAttributes.customClaims)
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
    func update(_ body: RequestBody, _ context: CallContext) async throws -> SetAccountInfoResponse {
        if let code = body.string("oobCode") { return try await applyCode(code) }
        try refuseUnsupported(body)
        if !context.isAdmin && body.has("customAttributes") { throw IdentityToolkitError.insufficientPermission }
        let admission = MailAdmission()
        return try await retryingLostRaces { try await change(body, context, admission) }
    }

    /// One run of ``update(_:_:)`` without a code: read, change, write if nothing came between.
    private func change(_ body: RequestBody, _ context: CallContext, _ admission: MailAdmission) async throws -> SetAccountInfoResponse {
        let read = try await targetUser(body, context)
        var user = read
        let now = clock.nowMilliseconds()
        let oldEmail = user.email
        var revokeSessions = false
        if let raw = body.rawString("email") {
            let email = try normalizedEmail(raw)
            if email != user.email {
                if try await store.user(tenantID: user.tenantID, email: email) != nil { throw IdentityToolkitError.emailExists }
                user.email = email
                user.emailVerified = context.isAdmin ? (body.bool("emailVerified") ?? false) : false
                revokeSessions = !context.isAdmin
            }
        }
        if let password = body.string("password") {
            try checkStrength(password)
            user.passwordHash = try await passwords.hash(password)
            user.passwordUpdatedAt = now
            revokeSessions = true
        }
        if body.has("displayName") { user.displayName = body.string("displayName") }
        if body.has("photoUrl") { user.photoURL = body.string("photoUrl") }
        for attribute in body.strings("deleteAttribute") {
            switch attribute {
            case "DISPLAY_NAME": user.displayName = nil
            case "PHOTO_URL": user.photoURL = nil
            case "PASSWORD": user.passwordHash = nil
            case "EMAIL": user.email = nil
            default: break
            }
        }
        removeProviders(body.strings("deleteProvider"), from: &user)
        // A user who sends `validSince` ends their other sessions (the value is not theirs to choose), as the emulator does.
        if !context.isAdmin && body.has("validSince") { revokeSessions = true }
        if context.isAdmin {
            if let verified = body.bool("emailVerified") { user.emailVerified = verified }
            if let disabled = body.bool("disableUser") ?? body.bool("disabled") { user.disabled = disabled }
            if let validSince = try body.integer("validSince", in: Self.validSinceRange, error: IdentityToolkitError(.invalidValidSince)) {
                user.validSince = validSince
            }
            if let phone = body.rawString("phoneNumber") { user.phoneNumber = phone.isEmpty ? nil : try AccountAttributes.phoneNumber(phone) }
            if let claims = body.jsonText("customAttributes") { user.customAttributes = try AccountAttributes.customClaims(claims) }
        }
        if revokeSessions { user.revokeSessions(at: now) }
        let newSessionWanted = !context.isAdmin && (revokeSessions || (body.bool("returnSecureToken") ?? false))
        if newSessionWanted { user.lastRefreshAt = now }
        var writes = AuthWrites(updatedUsers: [AuthWrites.Update(user, readAs: read)])
        var notices: [IssuedCode] = []
        if let oldEmail, oldEmail != user.email, let newEmail = user.email {
            // As Firebase mails the old address a way to undo the change, stored with the change.
            notices.append(try await recoverNotice(to: oldEmail, newEmail: newEmail, user: user, language: nil,
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

    func delete(_ body: RequestBody, _ context: CallContext) async throws -> DeleteAccountResponse {
        let user = try await targetUser(body, context)
        guard try await store.deleteUser(tenantID: user.tenantID, localID: user.localID) else { throw IdentityToolkitError.userNotFound }
        return DeleteAccountResponse()
    }

    /// What this backend does not do (second factors, linking federated providers) is refused,
    /// never accepted and dropped.
    func refuseUnsupported(_ body: RequestBody) throws {
        for field in ["mfaInfo", "mfa", "linkProviderUserInfo", "provider", "upgradeToFederatedLogin"] where body.has(field) {
            throw IdentityToolkitError(.operationNotAllowed, detail: "\(field) is not supported by this backend")
        }
    }
}
