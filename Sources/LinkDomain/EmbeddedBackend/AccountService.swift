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
    let clock: any BackendClock
    let logger: Logger

    typealias Result = JSONValue

    // MARK: Sign-up and password sign-in

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

    func signInWithPassword(_ body: RequestBody, _ context: CallContext) async throws -> Result {
        guard let rawEmail = body.string("email") else { throw IdentityToolkitError.missingEmail }
        let email = try normalizedEmail(rawEmail)
        guard let password = body.string("password") else { throw IdentityToolkitError.missingPassword }
        let found = try await store.user(tenantID: context.tenantID, email: email)
        // The hash is computed whether or not the account exists: the time taken must not say which.
        let matches = try await passwords.verify(password, against: found?.passwordHash)
        guard var user = found else {
            throw settings.emailEnumerationProtection ? IdentityToolkitError.invalidLoginCredentials : .emailNotFound
        }
        guard matches else {
            throw settings.emailEnumerationProtection ? IdentityToolkitError.invalidLoginCredentials : .invalidPassword
        }
        if user.disabled { throw IdentityToolkitError.userDisabled }
        let now = clock.nowMilliseconds()
        user.lastLoginAt = now
        try await update(user)
        var response = ResponseObject(kind: "VerifyPasswordResponse")
        response["localId"] = user.localID
        response["email"] = user.email
        response["displayName"] = user.displayName ?? ""
        response.set("registered", true)
        try await addSession(to: &response, for: user, provider: "password", now: now)
        return response.json
    }

    // MARK: Out-of-band codes

    func sendOobCode(_ body: RequestBody, _ context: CallContext) async throws -> Result {
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
            let user = try await store.user(tenantID: context.tenantID, email: email)
            localID = user?.localID
            if type == .passwordReset && user == nil {
                // With enumeration protection a client learns nothing; an admin asked for a link and must hear why there is none.
                if self.settings.emailEnumerationProtection && !context.isAdmin {
                    return emailResponse(email).json
                }
                throw IdentityToolkitError.emailNotFound
            }
        case .verifyEmail, .verifyAndChangeEmail:
            let user: UserRecord
            if let idToken = body.string("idToken") {
                user = try await authenticatedUser(idToken: idToken, context: context)
            } else if context.isAdmin, let raw = body.string("email") {
                guard let found = try await store.user(tenantID: context.tenantID, email: try normalizedEmail(raw)) else {
                    throw IdentityToolkitError.emailNotFound
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
        let record = try await issueCode(type, email: email, newEmail: newEmail, localID: localID, settings: settings, context: context)
        var response = emailResponse(type == .verifyAndChangeEmail ? (newEmail ?? email) : email)
        if returnLink {
            response["oobCode"] = record.code
            response["oobLink"] = record.link
        }
        return response.json
    }

    /// Checks a code without spending it (`accounts:resetPassword` with only `oobCode`), or resets the password.
    func resetPassword(_ body: RequestBody, _ context: CallContext) async throws -> Result {
        guard let code = body.string("oobCode") else { throw IdentityToolkitError.missingOobCode }
        let record = try await liveCode(code)
        guard let newPassword = body.string("newPassword") else {
            var response = ResponseObject(kind: "ResetPasswordResponse")
            response["requestType"] = record.requestType.rawValue
            // As the emulator does: an email-link sign-in code does not reveal the address it was sent to.
            if record.requestType != .emailSignIn { response["email"] = record.requestType == .verifyAndChangeEmail ? record.newEmail : record.email }
            if record.requestType == .verifyAndChangeEmail || record.requestType == .recoverEmail {
                response["newEmail"] = record.requestType == .verifyAndChangeEmail ? record.email : record.newEmail
            }
            return response.json
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
        var response = ResponseObject(kind: "ResetPasswordResponse")
        response["email"] = record.email
        response["requestType"] = record.requestType.rawValue
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

    private func applyCode(_ code: String) async throws -> Result {
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
                _ = try await issueCode(.recoverEmail, email: oldEmail, newEmail: record.email, localID: user.localID,
                                        settings: ActionCodeSettings(), context: CallContext(tenantID: user.tenantID))
            }
            return accountSummary(user, kind: "SetAccountInfoResponse").json
        case .recoverEmail:
            user.email = record.email
            user.emailVerified = true
        case .passwordReset, .emailSignIn, .revertSecondFactorAddition:
            break
        }
        try await update(user)
        var response = accountSummary(user, kind: "SetAccountInfoResponse")
        if record.requestType == .recoverEmail { response["newEmail"] = record.newEmail }
        return response.json
    }

    // MARK: Email-link sign-in

    func signInWithEmailLink(_ body: RequestBody, _ context: CallContext) async throws -> Result {
        guard let code = body.string("oobCode") else { throw IdentityToolkitError.missingOobCode }
        guard let raw = body.string("email") else { throw IdentityToolkitError.missingEmail }
        let email = try normalizedEmail(raw)
        let record = try await liveCode(code)
        guard record.requestType == .emailSignIn else { throw IdentityToolkitError.invalidOobCode }
        guard record.email == email else {
            throw IdentityToolkitError(.invalidEmail, detail: "The email provided does not match the sign-in email address.")
        }
        let signedIn = try await body.string("idToken").asyncMap { try await authenticatedUser(idToken: $0, context: context) }
        let existing = try await store.user(tenantID: context.tenantID, email: email)
        if let existing, existing.disabled { throw IdentityToolkitError.userDisabled }
        if let signedIn, let existing, existing.localID != signedIn.localID { throw IdentityToolkitError.emailExists }
        _ = try await redeem(code)

        let now = clock.nowMilliseconds()
        var isNewUser = false
        var user: UserRecord
        if var current = signedIn ?? existing {
            if current.email == nil { current.email = email }  // linking the email-link credential
            if !current.emailVerified && current.passwordHash != nil {
                // Whoever set that password never proved they own the address: drop it and end their sessions.
                current.passwordHash = nil
                current.passwordUpdatedAt = nil
                current.validSince = now / 1000
            }
            user = current
        } else {
            isNewUser = true
            user = UserRecord(tenantID: context.tenantID, localID: RandomToken.localID(), email: email, createdAt: now, validSince: now / 1000)
        }
        user.emailVerified = true
        user.emailLinkSignIn = true
        user.lastLoginAt = now
        if isNewUser {
            do {
                try await store.insertUser(user)
            } catch {
                guard error == .emailExists else { throw error }
                // Another code for the same address created the account a moment ago: sign in to that one.
                guard let created = try await store.user(tenantID: context.tenantID, email: email) else { throw IdentityToolkitError.internalError }
                user = created
                isNewUser = false
            }
        } else {
            try await update(user)
        }
        var response = ResponseObject(kind: "EmailLinkSigninResponse")
        response["localId"] = user.localID
        response["email"] = email
        response.set("isNewUser", isNewUser)
        try await addSession(to: &response, for: user, provider: "emailLink", now: now)
        return response.json
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

    // MARK: Accounts

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

    /// `securetoken.googleapis.com/v1/token`: a fresh ID token for a refresh token that is still valid.
    func refresh(_ body: RequestBody) async throws -> Result {
        guard body.string("grant_type") == "refresh_token" else { throw IdentityToolkitError(.invalidGrantType) }
        guard let token = body.string("refresh_token") else { throw IdentityToolkitError.missingRefreshToken }
        guard let record = try await store.refreshToken(token) else { throw IdentityToolkitError.invalidRefreshToken }
        guard let user = try await store.user(tenantID: record.tenantID, localID: record.localID) else { throw IdentityToolkitError.userNotFound }
        if user.disabled { throw IdentityToolkitError.userDisabled }
        // Sessions that began before the account's validSince (password reset, unverified password removed) are over.
        // Compared in seconds: a stored validSince is never multiplied, so no value can overflow.
        if record.createdAt / 1000 < user.validSince { throw IdentityToolkitError.tokenExpired }
        let now = clock.nowMilliseconds()
        let idToken = try await tokens.idToken(for: user, provider: user.emailLinkSignIn ? "emailLink" : "password",
                                               authTime: now / 1000, now: now / 1000)
        var response = ResponseObject()
        response["access_token"] = idToken
        response["id_token"] = idToken
        response["expires_in"] = String(TokenIssuer.lifetimeSeconds)
        response["token_type"] = "Bearer"
        response["refresh_token"] = token
        response["user_id"] = user.localID
        response["project_id"] = settings.projectID
        return response.json
    }

    func projectConfig() -> Result {
        .object([
            "projectId": .string(settings.projectID),
            "authorizedDomains": .list(settings.authorizedDomains.map(JSONValue.string)),
        ])
    }

    func listCodes(projectID: String) async throws -> Result {
        let codes = try await store.codes(projectID: projectID)
        return .object([
            "oobCodes": .list(codes.map { code in
                .object(["email": .string(code.email), "oobCode": .string(code.code), "oobLink": .string(code.link),
                         "requestType": .string(code.requestType.rawValue)])
            })
        ])
    }

    // MARK: Helpers

    private func issueCode(_ type: OobRequestType, email: String, newEmail: String?, localID: String?, settings: ActionCodeSettings,
                           context: CallContext) async throws -> OobCodeRecord {
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
    private func liveCode(_ code: String) async throws -> OobCodeRecord {
        guard let record = try await store.code(code) else { throw IdentityToolkitError.invalidOobCode }
        if record.expiresAt <= clock.nowMilliseconds() { throw IdentityToolkitError.expiredOobCode }
        return record
    }

    private func redeem(_ code: String) async throws -> OobCodeRecord {
        switch try await store.redeemCode(code, now: clock.nowMilliseconds()) {
        case .redeemed(let record): return record
        case .expired: throw IdentityToolkitError.expiredOobCode
        case .invalid: throw IdentityToolkitError.invalidOobCode
        }
    }

    /// The account a call acts on: an admin names it by `localId`, a user by their `idToken`.
    private func targetUser(_ body: RequestBody, _ context: CallContext) async throws -> UserRecord {
        if context.isAdmin, let localID = body.string("localId") {
            guard let user = try await store.user(tenantID: context.tenantID, localID: localID) else { throw IdentityToolkitError.userNotFound }
            return user
        }
        if let idToken = body.string("idToken") { return try await authenticatedUser(idToken: idToken, context: context) }
        throw context.isAdmin ? IdentityToolkitError.missingLocalID : .missingIDToken
    }

    /// The user an ID token names, if the token is genuine, current and not revoked.
    func authenticatedUser(idToken: String, context: CallContext) async throws -> UserRecord {
        guard let claims = await tokens.claims(of: idToken), (claims.firebase.tenant ?? "") == context.tenantID else {
            throw IdentityToolkitError.invalidIDToken
        }
        let nowSeconds = clock.nowMilliseconds() / 1000
        if claims.exp <= nowSeconds { throw IdentityToolkitError.tokenExpired }
        guard let user = try await store.user(tenantID: context.tenantID, localID: claims.userID) else { throw IdentityToolkitError.userNotFound }
        if user.disabled { throw IdentityToolkitError.userDisabled }
        if claims.iat < user.validSince { throw IdentityToolkitError.tokenExpired }
        return user
    }

    private func addSession(to response: inout ResponseObject, for user: UserRecord, provider: String, now: Int64) async throws {
        let refresh = RefreshTokenRecord(token: TokenIssuer.newRefreshToken(), tenantID: user.tenantID, localID: user.localID, createdAt: now)
        try await store.insertRefreshToken(refresh)
        response["idToken"] = try await tokens.idToken(for: user, provider: provider, authTime: now / 1000, now: now / 1000)
        response["refreshToken"] = refresh.token
        response["expiresIn"] = String(TokenIssuer.lifetimeSeconds)
    }

    private func insert(_ user: UserRecord) async throws {
        do {
            try await store.insertUser(user)
        } catch {
            if error == .emailExists { throw IdentityToolkitError.emailExists }
            throw error
        }
    }

    private func update(_ user: UserRecord) async throws {
        do {
            try await store.updateUser(user)
        } catch {
            if error == .emailExists { throw IdentityToolkitError.emailExists }
            throw error
        }
    }

    private func emailResponse(_ email: String) -> ResponseObject {
        var response = ResponseObject(kind: "GetOobConfirmationCodeResponse")
        response["email"] = email
        return response
    }

    private func accountSummary(_ user: UserRecord, kind: String) -> ResponseObject {
        var response = ResponseObject(kind: kind)
        response["localId"] = user.localID
        response["email"] = user.email
        response["displayName"] = user.displayName
        response["photoUrl"] = user.photoURL
        response.set("emailVerified", user.emailVerified)
        response.set("providerUserInfo", providerInfo(user))
        return response
    }

    private func providerInfo(_ user: UserRecord) -> JSONValue {
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

    /// `validSince` as admins may set it: seconds from 1970 to the end of year 9999.
    static let validSinceRange: ClosedRange<Int64> = 0...253_402_300_799

    private func normalizedEmail(_ raw: String) throws -> String {
        let email = raw.trimmingCharacters(in: .whitespaces).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        // No whitespace or control characters: an address is shown in pages and mails, and must not carry escape sequences.
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            email.utf8.count <= 254, !email.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control })
        else { throw IdentityToolkitError.invalidEmail }
        return email
    }

    private func checkStrength(_ password: String) throws {
        if password.count < 6 { throw IdentityToolkitError.weakPassword }
    }
}

extension Optional {
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async throws -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
