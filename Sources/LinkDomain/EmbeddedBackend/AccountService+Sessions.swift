import LinkDomainCore
import LinkDomainStorage

/// Signing in and staying signed in: password and email-link sign-in, ID tokens and refresh tokens.
extension AccountService {
    func signInWithPassword(_ request: SignInWithPasswordRequest, _ context: CallContext) async throws -> VerifyPasswordResponse {
        guard let rawEmail = request.email else { throw IdentityToolkitError.missingEmail }
        let email = try normalizedEmail(rawEmail)
        guard let password = request.password else { throw IdentityToolkitError.missingPassword }
        // The password is checked against the account as read, and the sign-in recorded only if the
        // account is still that one: a reset or an email-link sign-in that lands during the hash
        // wins, and the check runs again against the account it left.
        return try await retryingLostRaces {
            try await signIn(email: email, password: password, context)
        }
    }

    private func signIn(email: String, password: String, _ context: CallContext) async throws -> VerifyPasswordResponse {
        let found = try await store.user(tenantID: context.tenantID, email: email)
        // The hash is computed whether or not the account exists: the time taken must not say which.
        let matches = try await passwords.verify(password, against: found?.passwordHash, for: context.clientAddress)
        guard var user = found else {
            throw hidesAccounts ? IdentityToolkitError.invalidLoginCredentials : .emailNotFound
        }
        guard matches else {
            throw hidesAccounts ? IdentityToolkitError.invalidLoginCredentials : .invalidPassword
        }
        if user.disabled { throw IdentityToolkitError.userDisabled }
        let now = clock.nowMilliseconds()
        try await store.recordSignIn(of: user, lastLoginAt: now, lastRefreshAt: now)
        user.lastLoginAt = now
        user.lastRefreshAt = now
        var response = VerifyPasswordResponse(localId: user.localID, email: user.email, displayName: user.displayName ?? "")
        response.add(try await newSession(for: user, provider: "password", now: now))
        return response
    }

    func signInWithEmailLink(_ request: SignInWithEmailLinkRequest, _ context: CallContext) async throws -> EmailLinkSigninResponse {
        guard let code = request.oobCode else { throw IdentityToolkitError.missingOobCode }
        guard let raw = request.email else { throw IdentityToolkitError.missingEmail }
        let email = try normalizedEmail(raw)
        let record = try await liveCode(code)
        guard record.requestType == .emailSignIn else { throw IdentityToolkitError.invalidOobCode }
        guard record.email == email else {
            throw IdentityToolkitError(.invalidEmail, detail: "The email provided does not match the sign-in email address.")
        }
        let signedIn = try await request.idToken.asyncMap { try await authenticatedUser(idToken: $0, context: context) }
        let existing = try await store.user(tenantID: context.tenantID, email: email)
        if let existing, existing.disabled { throw IdentityToolkitError.userDisabled }
        if let signedIn, let existing, existing.localID != signedIn.localID { throw IdentityToolkitError.emailExists }
        // The code is spent in the transaction that writes the account (as it is at the write,
        // however often another request changes it first) and starts the session.
        var first: (signedIn: UserRecord?, existing: UserRecord?)? = (signedIn, existing)
        return try await retryingLostRaces {
            let read: (signedIn: UserRecord?, existing: UserRecord?)
            if let earlier = first {
                read = earlier
                first = nil
            } else {
                read = (
                    try await signedIn.asyncMap {
                        try await store.user(tenantID: $0.tenantID, localID: $0.localID) ?? { throw IdentityToolkitError.userNotFound }()
                    },
                    try await store.user(tenantID: context.tenantID, email: email)
                )
            }
            return try await completeEmailLinkSignIn(code: code, email: email, signedIn: read.signedIn, existing: read.existing, context)
        }
    }

    private func completeEmailLinkSignIn(code: String, email: String, signedIn: UserRecord?, existing: UserRecord?, _ context: CallContext) async throws
        -> EmailLinkSigninResponse
    {
        if let existing, existing.disabled { throw IdentityToolkitError.userDisabled }
        if let signedIn, signedIn.disabled { throw IdentityToolkitError.userDisabled }
        if let signedIn, let existing, existing.localID != signedIn.localID { throw IdentityToolkitError.emailExists }
        let now = clock.nowMilliseconds()
        var isNewUser = false
        var user: UserRecord
        let read = signedIn ?? existing
        if var current = read {
            if current.email != email {
                // The signed-in account (its ID token proves whose it is) takes the address this link proves.
                current.email = email
            } else if !current.emailVerified && current.passwordHash != nil {
                // Whoever set that password never proved they own the address: drop it and end their sessions.
                current.passwordHash = nil
                current.passwordUpdatedAt = nil
                current.revokeSessions(at: now)
            }
            user = current
        } else {
            isNewUser = true
            user = UserRecord(tenantID: context.tenantID, localID: RandomToken.localID(), email: email, createdAt: now, validSince: now / 1000)
            // The account's app signs it up, as with a password: its language is the account's.
            user.languageCode = context.spokenLanguage
        }
        user.emailVerified = true
        user.emailLinkSignIn = true
        user.lastLoginAt = now
        user.lastRefreshAt = now
        // Google reports email-link sign-ins as the password provider.
        let session = sessionRecord(for: user, provider: "password", now: now)
        var writes = AuthWrites(spending: spending(code), refreshTokens: [session])
        if isNewUser {
            writes.insertedUsers = [user]
        } else if let read {
            writes.updatedUsers = [AuthWrites.Update(user, readAs: read)]
        }
        do {
            try await commit(writes)
        } catch let error as IdentityToolkitError where isNewUser && error.code == .emailExists {
            // Another code for the same address created the account a moment ago: nothing was
            // written, and the next run signs in to that account.
            throw StoreError.conflict
        }
        var response = EmailLinkSigninResponse(localId: user.localID, email: email, isNewUser: isNewUser)
        response.add(try await sessionTokens(for: user, session))
        return response
    }

    /// `securetoken.googleapis.com/v1/token`: a fresh ID token for a refresh token that is still valid.
    ///
    /// Takes `grant_type`/`refresh_token` (the REST spelling) or `grantType`/`refreshToken` (what some
    /// clients send), as a form or JSON. The new ID token keeps the sign-in's `auth_time` and
    /// provider: a refresh is not a new login.
    package func refresh(_ request: RefreshTokenRequest) async throws -> RefreshTokenResponse {
        guard let grantType = request.grantType else { throw IdentityToolkitError(.missingGrantType) }
        guard grantType == "refresh_token" else { throw IdentityToolkitError(.invalidGrantType) }
        guard let token = request.refreshToken else { throw IdentityToolkitError.missingRefreshToken }
        // Recorded only if the account is still as read: a revocation that lands in between is seen on the next run.
        return try await retryingLostRaces { try await refresh(token: token) }
    }

    private func refresh(token: String) async throws -> RefreshTokenResponse {
        guard let record = try await store.refreshToken(token) else { throw IdentityToolkitError.invalidRefreshToken }
        guard let user = try await store.user(tenantID: record.tenantID, localID: record.localID) else { throw IdentityToolkitError.userNotFound }
        if user.disabled { throw IdentityToolkitError.userDisabled }
        // Sessions that began before the account's validSince (password reset, unverified password removed) are over.
        // Compared in seconds: a stored validSince is never multiplied, so no value can overflow.
        if record.createdAt / 1000 < user.validSince { throw IdentityToolkitError.tokenExpired }
        let now = clock.nowMilliseconds()
        try await store.recordSignIn(of: user, lastLoginAt: nil, lastRefreshAt: now)
        var refreshed = user
        refreshed.lastRefreshAt = now
        let idToken = try await tokens.idToken(
            for: refreshed, provider: record.provider ?? Self.provider(of: user),
            authTime: record.createdAt / 1000, now: now / 1000, extraClaims: record.claims)
        return RefreshTokenResponse(
            access_token: idToken, id_token: idToken, expires_in: String(TokenIssuer.lifetimeSeconds), refresh_token: token,
            user_id: user.localID, project_id: settings.projectID)
    }

    /// The user an ID token names, if the token is genuine, current and not revoked.
    func authenticatedUser(idToken: String, context: CallContext) async throws -> UserRecord {
        try await authenticated(idToken: idToken, tenantID: context.tenantID).user
    }

    /// The account and claims of an ID token that is genuine, current and not revoked, of
    /// `tenantID` (nil: of whichever tenant the token names).
    func authenticated(idToken: String, tenantID: String?) async throws -> (user: UserRecord, claims: IDTokenClaims) {
        guard let claims = await tokens.claims(of: idToken) else { throw IdentityToolkitError.invalidIDToken }
        let tokenTenant = claims.firebase.tenant ?? ""
        guard tenantID == nil || tenantID == tokenTenant else { throw IdentityToolkitError.invalidIDToken }
        if claims.exp <= clock.nowSeconds { throw IdentityToolkitError.tokenExpired }
        guard let user = try await store.user(tenantID: tokenTenant, localID: claims.userID) else { throw IdentityToolkitError.userNotFound }
        if user.disabled { throw IdentityToolkitError.userDisabled }
        if claims.iat < user.validSince { throw IdentityToolkitError.tokenExpired }
        return (user, claims)
    }

    /// `now`, or the start of the account's `validSince` second when that is the next one.
    private static func sessionStart(for user: UserRecord, now: Int64) -> Int64 {
        let second = now / 1000
        // Compared in seconds, and multiplied only when at most one second ahead: no stored value can overflow.
        guard user.validSince > second, user.validSince - second <= 1 else { return now }
        return user.validSince * 1000
    }

    /// How an account signs in when nothing else says: anonymously when it has no email, phone or password.
    static func provider(of user: UserRecord) -> String {
        user.email == nil && user.phoneNumber == nil && user.passwordHash == nil ? "anonymous" : "password"
    }

    /// Starts a session: a stored refresh token and an ID token for `user`, signed in by `provider` at `now`.
    /// (Callers record `lastRefreshAt` with the account's own write.)
    ///
    /// A session never begins in the second its account's sessions were revoked in: tokens carry
    /// whole seconds, and ``UserRecord/revokeSessions(at:)`` revoked that whole second. It begins
    /// at the next one, and its ID token is made then (at most a second, and only right after a
    /// revocation).
    func newSession(for user: UserRecord, provider: String, now: Int64, extraClaims: String? = nil) async throws -> SessionTokens {
        let session = sessionRecord(for: user, provider: provider, now: now, extraClaims: extraClaims)
        try await store.insertRefreshToken(session)
        return try await sessionTokens(for: user, session)
    }

    /// A session's refresh token, not yet stored, for a caller that stores it with its action's
    /// other writes: it begins at once, or at the start of the second after a revocation (no
    /// waiting here, so the action's writes are not held back while another request could read the
    /// account as it was).
    func sessionRecord(for user: UserRecord, provider: String, now: Int64, extraClaims: String? = nil) -> RefreshTokenRecord {
        RefreshTokenRecord(
            token: TokenIssuer.newRefreshToken(), tenantID: user.tenantID, localID: user.localID,
            createdAt: Self.sessionStart(for: user, now: now), provider: provider, claims: extraClaims)
    }

    /// The tokens a client gets for a stored session of `user`, made once the session has begun:
    /// an ID token is never issued before its own `iat`.
    func sessionTokens(for user: UserRecord, _ session: RefreshTokenRecord) async throws -> SessionTokens {
        let wait = session.createdAt - clock.nowMilliseconds()
        if wait > 0 { try await Task.sleep(for: .milliseconds(min(wait, 1000))) }
        let provider = session.provider ?? Self.provider(of: user)
        return SessionTokens(
            idToken: try await tokens.idToken(
                for: user, provider: provider, authTime: session.createdAt / 1000,
                now: session.createdAt / 1000, extraClaims: session.claims),
            refreshToken: session.token, expiresIn: String(TokenIssuer.lifetimeSeconds))
    }
}
