// The answers about accounts, field for field as Google spells them. Optional fields that are nil are left out, as
// Google leaves them out.

/// A sign-in provider of an account, as `providerUserInfo` lists it.
package struct ProviderUserInfo: Codable, Sendable, Equatable {
    package var providerId: String
    package var email: String?
    package var federatedId: String?
    package var rawId: String
    package var displayName: String?
    package var photoUrl: String?
    package var phoneNumber: String?

    package init(
        providerId: String,
        email: String? = nil,
        federatedId: String? = nil,
        rawId: String,
        displayName: String? = nil,
        photoUrl: String? = nil,
        phoneNumber: String? = nil
    ) {
        self.providerId = providerId
        self.email = email
        self.federatedId = federatedId
        self.rawId = rawId
        self.displayName = displayName
        self.photoUrl = photoUrl
        self.phoneNumber = phoneNumber
    }
}

/// An account as `accounts:lookup` returns it (never the password hash).
package struct UserInfo: Codable, Sendable {
    package var localId: String
    package var email: String?
    package var displayName: String?
    package var photoUrl: String?
    /// Milliseconds since 1970, as a decimal string.
    package var createdAt: String
    package var lastLoginAt: String?
    /// Seconds since 1970, as a decimal string.
    package var validSince: String
    package var tenantId: String?
    package var emailVerified: Bool
    package var disabled: Bool
    package var emailLinkSignin: Bool
    package var passwordUpdatedAt: Int64?
    package var providerUserInfo: [ProviderUserInfo]
    package var phoneNumber: String?
    /// The custom claims' JSON text.
    package var customAttributes: String?
    /// RFC 3339, as Google writes it (`2026-11-22T20:30:00.123Z`).
    package var lastRefreshAt: String?
    /// For admins only: the password hash and its salt, base64.
    package var passwordHash: String?
    package var salt: String?

    package init(
        localId: String,
        email: String? = nil,
        displayName: String? = nil,
        photoUrl: String? = nil,
        createdAt: String,
        lastLoginAt: String? = nil,
        validSince: String,
        tenantId: String? = nil,
        emailVerified: Bool,
        disabled: Bool,
        emailLinkSignin: Bool,
        passwordUpdatedAt: Int64? = nil,
        providerUserInfo: [ProviderUserInfo],
        phoneNumber: String? = nil,
        customAttributes: String? = nil,
        lastRefreshAt: String? = nil,
        passwordHash: String? = nil,
        salt: String? = nil
    ) {
        self.localId = localId
        self.email = email
        self.displayName = displayName
        self.photoUrl = photoUrl
        self.createdAt = createdAt
        self.lastLoginAt = lastLoginAt
        self.validSince = validSince
        self.tenantId = tenantId
        self.emailVerified = emailVerified
        self.disabled = disabled
        self.emailLinkSignin = emailLinkSignin
        self.passwordUpdatedAt = passwordUpdatedAt
        self.providerUserInfo = providerUserInfo
        self.phoneNumber = phoneNumber
        self.customAttributes = customAttributes
        self.lastRefreshAt = lastRefreshAt
        self.passwordHash = passwordHash
        self.salt = salt
    }
}

/// `accounts:update`, and the account a code applied to.
package struct SetAccountInfoResponse: Codable, Sendable, CarriesSession {
    package var kind = "identitytoolkit#SetAccountInfoResponse"
    package var localId: String
    package var email: String?
    package var displayName: String?
    package var photoUrl: String?
    package var emailVerified: Bool
    package var providerUserInfo: [ProviderUserInfo]
    /// For a recovered address: the address the account had been changed to.
    package var newEmail: String?
    package var idToken: String?
    package var refreshToken: String?
    package var expiresIn: String?

    package init(
        kind: String = "identitytoolkit#SetAccountInfoResponse",
        localId: String,
        email: String? = nil,
        displayName: String? = nil,
        photoUrl: String? = nil,
        emailVerified: Bool,
        providerUserInfo: [ProviderUserInfo],
        newEmail: String? = nil,
        idToken: String? = nil,
        refreshToken: String? = nil,
        expiresIn: String? = nil
    ) {
        self.kind = kind
        self.localId = localId
        self.email = email
        self.displayName = displayName
        self.photoUrl = photoUrl
        self.emailVerified = emailVerified
        self.providerUserInfo = providerUserInfo
        self.newEmail = newEmail
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
    }
}

/// `accounts:lookup`: no `users` at all when none matched.
package struct GetAccountInfoResponse: Codable, Sendable {
    package var kind = "identitytoolkit#GetAccountInfoResponse"
    package var users: [UserInfo]?

    package init(kind: String = "identitytoolkit#GetAccountInfoResponse", users: [UserInfo]? = nil) {
        self.kind = kind
        self.users = users
    }
}

/// `accounts:delete`.
package struct DeleteAccountResponse: Codable, Sendable {
    package var kind = "identitytoolkit#DeleteAccountResponse"

    package init(kind: String = "identitytoolkit#DeleteAccountResponse") {
        self.kind = kind
    }
}

/// `accounts:createAuthUri`: with enumeration protection, only the session.
package struct CreateAuthUriResponse: Codable, Sendable {
    package var kind = "identitytoolkit#CreateAuthUriResponse"
    package var sessionId: String
    package var registered: Bool?
    package var signinMethods: [String]?
    package var allProviders: [String]?

    package init(
        kind: String = "identitytoolkit#CreateAuthUriResponse",
        sessionId: String,
        registered: Bool? = nil,
        signinMethods: [String]? = nil,
        allProviders: [String]? = nil
    ) {
        self.kind = kind
        self.sessionId = sessionId
        self.registered = registered
        self.signinMethods = signinMethods
        self.allProviders = allProviders
    }
}
