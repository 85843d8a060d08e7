/// Creating, changing, finding and deleting accounts: `signUp` (and the admin create call),
/// `update` without a code, `lookup`, `delete`, `createAuthUri`, and how accounts are answered.
extension AccountService {
    func signUp(_ body: RequestBody, _ context: CallContext) async throws -> SignUpResponse {
        let email = try body.string("email").map(normalizedEmail)
        let password = body.string("password")
        if let password { try checkStrength(password) }
        if email != nil && password == nil && !context.isAdmin { throw IdentityToolkitError.missingPassword }
        let now = clock.nowMilliseconds()
        let localID = context.isAdmin ? (body.string("localId") ?? RandomToken.localID()) : RandomToken.localID()
        let user = UserRecord(
            tenantID: context.tenantID, localID: localID, email: email,
            emailVerified: context.isAdmin ? (body.bool("emailVerified") ?? false) : false,
            passwordHash: try await password.asyncMap(passwords.hash), passwordUpdatedAt: password == nil ? nil : now,
            displayName: body.string("displayName"), photoURL: body.string("photoUrl"),
            disabled: context.isAdmin ? (body.bool("disabled") ?? false) : false,
            createdAt: now, lastLoginAt: context.isAdmin ? nil : now, validSince: now / 1000)
        if context.isAdmin, try await store.user(tenantID: context.tenantID, localID: localID) != nil {
            throw IdentityToolkitError.duplicateLocalID
        }
        try await insert(user)
        var response = SignUpResponse(localId: user.localID, email: user.email, displayName: user.displayName)
        if !context.isAdmin {
            response.add(try await newSession(for: user, provider: email == nil ? "anonymous" : "password", now: now))
        }
        return response
    }

    /// `accounts:update`: applies a code (verify, recover or change email), or changes the signed-in user.
    func update(_ body: RequestBody, _ context: CallContext) async throws -> SetAccountInfoResponse {
        if let code = body.string("oobCode") { return try await applyCode(code) }
        var user = try await targetUser(body, context)
        let now = clock.nowMilliseconds()
        let oldEmail = user.email
        if let raw = body.string("email") {
            let email = try normalizedEmail(raw)
            if email != user.email {
                if try await store.user(tenantID: user.tenantID, email: email) != nil { throw IdentityToolkitError.emailExists }
                user.email = email
                user.emailVerified = context.isAdmin ? (body.bool("emailVerified") ?? false) : false
            }
        }
        var revokeSessions = false
        if let password = body.string("password") {
            try checkStrength(password)
            user.passwordHash = try await passwords.hash(password)
            user.passwordUpdatedAt = now
            revokeSessions = true
        }
        if body.has("displayName") { user.displayName = body.string("displayName") }
        if body.has("photoUrl") { user.photoURL = body.string("photoUrl") }
        for attribute in body.strings("deleteAttribute") {
            if attribute == "DISPLAY_NAME" { user.displayName = nil }
            if attribute == "PHOTO_URL" { user.photoURL = nil }
        }
        if body.strings("deleteProvider").contains("password") { user.passwordHash = nil }
        if context.isAdmin {
            if let verified = body.bool("emailVerified") { user.emailVerified = verified }
            if let disabled = body.bool("disableUser") ?? body.bool("disabled") { user.disabled = disabled }
            if let validSince = try body.integer("validSince", in: Self.validSinceRange, error: IdentityToolkitError(.invalidValidSince)) {
                user.validSince = validSince
            }
        }
        if revokeSessions && !context.isAdmin { user.validSince = now / 1000 }
        try await update(user)
        if let oldEmail, oldEmail != user.email, let newEmail = user.email {
            // As Firebase mails the old address a way to undo the change.
            _ = try await issueCode(.recoverEmail, email: oldEmail, newEmail: newEmail, localID: user.localID,
                                    settings: ActionCodeSettings(), context: CallContext(tenantID: user.tenantID))
        }
        var response = accountSummary(user)
        if !context.isAdmin && (body.bool("returnSecureToken") ?? false) {
            response.add(try await newSession(for: user, provider: "password", now: now))
        }
        return response
    }

    func lookup(_ body: RequestBody, _ context: CallContext) async throws -> GetAccountInfoResponse {
        var users: [UserRecord] = []
        if let idToken = body.string("idToken") {
            users = [try await authenticatedUser(idToken: idToken, context: context)]
        } else if context.isAdmin {
            for localID in body.strings("localId") {
                if let user = try await store.user(tenantID: context.tenantID, localID: localID) { users.append(user) }
            }
            for email in body.strings("email") {
                if let user = try await store.user(tenantID: context.tenantID, email: email.lowercased()) { users.append(user) }
            }
        } else {
            throw IdentityToolkitError.missingIDToken
        }
        return GetAccountInfoResponse(users: users.isEmpty ? nil : users.map(userInfo))
    }

    func delete(_ body: RequestBody, _ context: CallContext) async throws -> DeleteAccountResponse {
        let user = try await targetUser(body, context)
        guard try await store.deleteUser(tenantID: user.tenantID, localID: user.localID) else { throw IdentityToolkitError.userNotFound }
        return DeleteAccountResponse()
    }

    /// What `fetchSignInMethods(forEmail:)` calls; with enumeration protection it reveals nothing.
    func createAuthURI(_ body: RequestBody, _ context: CallContext) async throws -> CreateAuthUriResponse {
        guard let raw = body.string("identifier") ?? body.string("email") else { throw IdentityToolkitError.missingEmail }
        let email = try normalizedEmail(raw)
        var response = CreateAuthUriResponse(sessionId: RandomToken.make(bytes: 16))
        if settings.emailEnumerationProtection && !context.isAdmin { return response }
        let user = try await store.user(tenantID: context.tenantID, email: email)
        response.registered = user != nil
        if let user {
            var methods: [String] = []
            if user.passwordHash != nil { methods.append("password") }
            if user.emailLinkSignIn { methods.append("emailLink") }
            response.signinMethods = methods
            response.allProviders = methods.isEmpty ? [] : ["password"]
        }
        return response
    }

    func projectConfig() -> ProjectConfigResponse {
        ProjectConfigResponse(projectId: settings.projectID, authorizedDomains: settings.authorizedDomains)
    }

    /// The account as `accounts:update` answers.
    func accountSummary(_ user: UserRecord) -> SetAccountInfoResponse {
        SetAccountInfoResponse(localId: user.localID, email: user.email, displayName: user.displayName, photoUrl: user.photoURL,
                               emailVerified: user.emailVerified, providerUserInfo: providerInfo(user))
    }

    func providerInfo(_ user: UserRecord) -> [ProviderUserInfo] {
        guard let email = user.email, user.passwordHash != nil || user.emailLinkSignIn else { return [] }
        return [ProviderUserInfo(providerId: "password", email: email, federatedId: email, rawId: email, displayName: user.displayName)]
    }

    /// A user as `accounts:lookup` returns it (never the password hash).
    func userInfo(_ user: UserRecord) -> UserInfo {
        UserInfo(localId: user.localID, email: user.email, displayName: user.displayName, photoUrl: user.photoURL,
                 createdAt: String(user.createdAt), lastLoginAt: user.lastLoginAt.map(String.init), validSince: String(user.validSince),
                 tenantId: user.tenantID.isEmpty ? nil : user.tenantID, emailVerified: user.emailVerified, disabled: user.disabled,
                 emailLinkSignin: user.emailLinkSignIn, passwordUpdatedAt: user.passwordUpdatedAt, providerUserInfo: providerInfo(user))
    }
}
