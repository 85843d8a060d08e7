// The answers that sign someone in, field for field as Google spells them. Optional fields that are nil are left out, as
// Google leaves them out.

/// The tokens of a new session, carried by every response that signs someone in.
package protocol CarriesSession {
    var idToken: String? { get set }
    var refreshToken: String? { get set }
    var expiresIn: String? { get set }
}

extension CarriesSession {
    package mutating func add(_ session: SessionTokens) {
        idToken = session.idToken
        refreshToken = session.refreshToken
        expiresIn = session.expiresIn
    }
}

/// A fresh ID token and refresh token.
package struct SessionTokens: Sendable {
    package let idToken: String
    package let refreshToken: String
    /// The ID token's lifetime in seconds, as a decimal string.
    package let expiresIn: String

    package init(idToken: String, refreshToken: String, expiresIn: String) {
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
    }
}

/// `accounts:signUp` (and the admin create call).
package struct SignUpResponse: Codable, Sendable, CarriesSession {
    package var kind = "identitytoolkit#SignupNewUserResponse"
    package var localId: String
    package var email: String?
    package var displayName: String?
    package var idToken: String?
    package var refreshToken: String?
    package var expiresIn: String?

    package init(
        kind: String = "identitytoolkit#SignupNewUserResponse",
        localId: String,
        email: String? = nil,
        displayName: String? = nil,
        idToken: String? = nil,
        refreshToken: String? = nil,
        expiresIn: String? = nil
    ) {
        self.kind = kind
        self.localId = localId
        self.email = email
        self.displayName = displayName
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
    }
}

/// `accounts:signInWithPassword`.
package struct VerifyPasswordResponse: Codable, Sendable, CarriesSession {
    package var kind = "identitytoolkit#VerifyPasswordResponse"
    package var localId: String
    package var email: String?
    package var displayName: String
    package var registered = true
    package var idToken: String?
    package var refreshToken: String?
    package var expiresIn: String?

    package init(
        kind: String = "identitytoolkit#VerifyPasswordResponse",
        localId: String,
        email: String? = nil,
        displayName: String,
        registered: Bool = true,
        idToken: String? = nil,
        refreshToken: String? = nil,
        expiresIn: String? = nil
    ) {
        self.kind = kind
        self.localId = localId
        self.email = email
        self.displayName = displayName
        self.registered = registered
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
    }
}

/// `accounts:signInWithEmailLink`.
package struct EmailLinkSigninResponse: Codable, Sendable, CarriesSession {
    package var kind = "identitytoolkit#EmailLinkSigninResponse"
    package var localId: String
    package var email: String
    package var isNewUser: Bool
    package var idToken: String?
    package var refreshToken: String?
    package var expiresIn: String?

    package init(
        kind: String = "identitytoolkit#EmailLinkSigninResponse",
        localId: String,
        email: String,
        isNewUser: Bool,
        idToken: String? = nil,
        refreshToken: String? = nil,
        expiresIn: String? = nil
    ) {
        self.kind = kind
        self.localId = localId
        self.email = email
        self.isNewUser = isNewUser
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
    }
}

/// `accounts:signInWithCustomToken`.
package struct VerifyCustomTokenResponse: Codable, Sendable, CarriesSession {
    package var kind = "identitytoolkit#VerifyCustomTokenResponse"
    package var isNewUser: Bool
    package var idToken: String?
    package var refreshToken: String?
    package var expiresIn: String?

    package init(
        kind: String = "identitytoolkit#VerifyCustomTokenResponse",
        isNewUser: Bool,
        idToken: String? = nil,
        refreshToken: String? = nil,
        expiresIn: String? = nil
    ) {
        self.kind = kind
        self.isNewUser = isNewUser
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
    }
}

/// `securetoken.googleapis.com/v1/token`, in its own snake-case spelling.
package struct RefreshTokenResponse: Codable, Sendable {
    package var access_token: String
    package var id_token: String
    package var expires_in: String
    package var token_type = "Bearer"
    package var refresh_token: String
    package var user_id: String
    package var project_id: String

    package init(
        access_token: String,
        id_token: String,
        expires_in: String,
        token_type: String = "Bearer",
        refresh_token: String,
        user_id: String,
        project_id: String
    ) {
        self.access_token = access_token
        self.id_token = id_token
        self.expires_in = expires_in
        self.token_type = token_type
        self.refresh_token = refresh_token
        self.user_id = user_id
        self.project_id = project_id
    }
}

/// `projects/{projectID}:createSessionCookie`.
package struct SessionCookieResponse: Codable, Sendable {
    package var sessionCookie: String

    package init(sessionCookie: String) {
        self.sessionCookie = sessionCookie
    }
}
