/// Creating, changing, finding and deleting accounts: `signUp` (and the admin create call),
/// `update` without a code, `lookup`, `delete`, `createAuthUri`, and how accounts are answered.
extension AccountService {
    func signUp(_ body: RequestBody, _ context: CallContext) async throws -> Result {
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
        var response = ResponseObject(kind: "SignupNewUserResponse")
        response["localId"] = user.localID
        response["email"] = user.email
        response["displayName"] = user.displayName
        if !context.isAdmin {
            try await addSession(to: &response, for: user, provider: email == nil ? "anonymous" : "password", now: now)
        }
        return response.json
    }

    /// `accounts:update`: applies a code (verify, recover or change email), or changes the signed-in user.
    func update(_ body: RequestBody, _ context: CallContext) async throws -> Result {
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
        var response = accountSummary(user, kind: "SetAccountInfoResponse")
        if !context.isAdmin && (body.bool("returnSecureToken") ?? false) {
            try await addSession(to: &response, for: user, provider: "password", now: now)
        }
        return response.json
    }

    func lookup(_ body: RequestBody, _ context: CallContext) async throws -> Result {
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
        var response = ResponseObject(kind: "GetAccountInfoResponse")
        if !users.isEmpty { response.set("users", .list(users.map { userInfo($0) })) }
        return response.json
    }

    func delete(_ body: RequestBody, _ context: CallContext) async throws -> Result {
        let user = try await targetUser(body, context)
        guard try await store.deleteUser(tenantID: user.tenantID, localID: user.localID) else { throw IdentityToolkitError.userNotFound }
        return ResponseObject(kind: "DeleteAccountResponse").json
    }

    /// What `fetchSignInMethods(forEmail:)` calls; with enumeration protection it reveals nothing.
    func createAuthURI(_ body: RequestBody, _ context: CallContext) async throws -> Result {
        guard let raw = body.string("identifier") ?? body.string("email") else { throw IdentityToolkitError.missingEmail }
        let email = try normalizedEmail(raw)
        var response = ResponseObject(kind: "CreateAuthUriResponse")
        response["sessionId"] = RandomToken.make(bytes: 16)
        if settings.emailEnumerationProtection && !context.isAdmin { return response.json }
        let user = try await store.user(tenantID: context.tenantID, email: email)
        response.set("registered", user != nil)
        if let user {
            var methods: [JSONValue] = []
            if user.passwordHash != nil { methods.append(.string("password")) }
            if user.emailLinkSignIn { methods.append(.string("emailLink")) }
            response.set("signinMethods", .list(methods))
            response.set("allProviders", .list(methods.isEmpty ? [] : [.string("password")]))
        }
        return response.json
    }

    func projectConfig() -> Result {
        .object([
            "projectId": .string(settings.projectID),
            "authorizedDomains": .list(settings.authorizedDomains.map(JSONValue.string)),
        ])
    }

    func accountSummary(_ user: UserRecord, kind: String) -> ResponseObject {
        var response = ResponseObject(kind: kind)
        response["localId"] = user.localID
        response["email"] = user.email
        response["displayName"] = user.displayName
        response["photoUrl"] = user.photoURL
        response.set("emailVerified", user.emailVerified)
        response.set("providerUserInfo", providerInfo(user))
        return response
    }

    func providerInfo(_ user: UserRecord) -> JSONValue {
        guard let email = user.email, user.passwordHash != nil || user.emailLinkSignIn else { return .list([]) }
        var info: [String: JSONValue] = ["providerId": .string("password"), "email": .string(email),
                                         "federatedId": .string(email), "rawId": .string(email)]
        if let name = user.displayName { info["displayName"] = .string(name) }
        return .list([.object(info)])
    }

    /// A user as `accounts:lookup` returns it (never the password hash).
    func userInfo(_ user: UserRecord) -> JSONValue {
        var info = ResponseObject()
        info["localId"] = user.localID
        info["email"] = user.email
        info["displayName"] = user.displayName
        info["photoUrl"] = user.photoURL
        info["createdAt"] = String(user.createdAt)
        info["lastLoginAt"] = user.lastLoginAt.map(String.init)
        info["validSince"] = String(user.validSince)
        info["tenantId"] = user.tenantID.isEmpty ? nil : user.tenantID
        info.set("emailVerified", user.emailVerified)
        info.set("disabled", user.disabled)
        info.set("emailLinkSignin", user.emailLinkSignIn)
        if let updated = user.passwordUpdatedAt { info.set("passwordUpdatedAt", .integer(Int(updated))) }
        info.set("providerUserInfo", providerInfo(user))
        return info.json
    }
}
