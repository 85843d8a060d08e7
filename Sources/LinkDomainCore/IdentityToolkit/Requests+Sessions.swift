/// The session requests: signing in (password, email link, custom token), refreshing a session
/// (`securetoken.googleapis.com/v1/token`) and making a session cookie.

/// `accounts:signInWithPassword`.
package struct SignInWithPasswordRequest: Decodable, Sendable, Equatable {
    package var email: String?
    package var password: String?

    enum CodingKeys: String, CodingKey { case email, password }

    package init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        email = fields.string(.email)
        password = fields.string(.password)
    }
}

/// `accounts:signInWithEmailLink`: the code and the address it was mailed to; with a signed-in
/// user's `idToken`, the address is linked to that account.
package struct SignInWithEmailLinkRequest: Decodable, Sendable, Equatable {
    package var oobCode: String?
    package var email: String?
    package var idToken: String?

    enum CodingKeys: String, CodingKey { case oobCode, email, idToken }

    package init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        oobCode = fields.string(.oobCode)
        email = fields.string(.email)
        idToken = fields.string(.idToken)
    }
}

/// `accounts:signInWithCustomToken`.
package struct SignInWithCustomTokenRequest: Decodable, Sendable, Equatable {
    package var token: String?

    enum CodingKeys: String, CodingKey { case token }

    package init(from decoder: any Decoder) throws {
        token = try decoder.container(keyedBy: CodingKeys.self).string(.token)
    }
}

/// The token endpoint's refresh: OAuth's `grant_type` and `refresh_token`, or the camel-case
/// names some clients send.
package struct RefreshTokenRequest: Decodable, Sendable, Equatable {
    package var grantType: String?
    package var refreshToken: String?

    enum CodingKeys: String, CodingKey { case grant_type, grantType, refresh_token, refreshToken }

    package init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        grantType = fields.string(.grant_type) ?? fields.string(.grantType)
        refreshToken = fields.string(.refresh_token) ?? fields.string(.refreshToken)
    }
}

/// `projects/{id}:createSessionCookie`.
package struct CreateSessionCookieRequest: Decodable, Sendable, Equatable {
    package var idToken: String?
    /// Seconds; the operation holds it to Google's range.
    package var validDuration = WholeNumber.absent

    enum CodingKeys: String, CodingKey { case idToken, validDuration }

    package init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        idToken = fields.string(.idToken)
        validDuration = fields.wholeNumber(.validDuration)
    }
}

/// The tenant a request names in its body (`tenantId`), for calls whose path names none.
package struct RequestTenant: Decodable, Sendable, Equatable {
    package var tenantID: String?

    enum CodingKeys: String, CodingKey { case tenantID = "tenantId" }

    package init(from decoder: any Decoder) throws {
        tenantID = try decoder.container(keyedBy: CodingKeys.self).string(.tenantID)
    }
}
