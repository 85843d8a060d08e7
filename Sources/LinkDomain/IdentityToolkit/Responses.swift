/// The answers of Identity Toolkit's endpoints, field for field as Google spells them. Optional
/// fields that are nil are left out, as Google leaves them out.

/// The tokens of a new session, carried by every response that signs someone in.
protocol CarriesSession {
    var idToken: String? { get set }
    var refreshToken: String? { get set }
    var expiresIn: String? { get set }
}

extension CarriesSession {
    mutating func add(_ session: SessionTokens) {
        idToken = session.idToken
        refreshToken = session.refreshToken
        expiresIn = session.expiresIn
    }
}

/// A fresh ID token and refresh token.
struct SessionTokens: Sendable {
    let idToken: String
    let refreshToken: String
    /// The ID token's lifetime in seconds, as a decimal string.
    let expiresIn: String
}

/// `accounts:signUp` (and the admin create call).
package struct SignUpResponse: Codable, Sendable, CarriesSession {
    var kind = "identitytoolkit#SignupNewUserResponse"
    package var localId: String
    var email: String?
    var displayName: String?
    package var idToken: String?
    package var refreshToken: String?
    var expiresIn: String?
}

/// `accounts:signInWithPassword`.
struct VerifyPasswordResponse: Codable, Sendable, CarriesSession {
    var kind = "identitytoolkit#VerifyPasswordResponse"
    var localId: String
    var email: String?
    var displayName: String
    var registered = true
    var idToken: String?
    var refreshToken: String?
    var expiresIn: String?
}

/// `accounts:signInWithEmailLink`.
struct EmailLinkSigninResponse: Codable, Sendable, CarriesSession {
    var kind = "identitytoolkit#EmailLinkSigninResponse"
    var localId: String
    var email: String
    var isNewUser: Bool
    var idToken: String?
    var refreshToken: String?
    var expiresIn: String?
}

/// `securetoken.googleapis.com/v1/token`, in its own snake-case spelling.
package struct RefreshTokenResponse: Codable, Sendable {
    var access_token: String
    var id_token: String
    var expires_in: String
    var token_type = "Bearer"
    var refresh_token: String
    var user_id: String
    var project_id: String
}

/// A sign-in provider of an account, as `providerUserInfo` lists it.
struct ProviderUserInfo: Codable, Sendable, Equatable {
    var providerId: String
    var email: String?
    var federatedId: String?
    var rawId: String
    var displayName: String?
    var photoUrl: String?
    var phoneNumber: String?
}

/// `accounts:update`, and the account a code applied to.
struct SetAccountInfoResponse: Codable, Sendable, CarriesSession {
    var kind = "identitytoolkit#SetAccountInfoResponse"
    var localId: String
    var email: String?
    var displayName: String?
    var photoUrl: String?
    var emailVerified: Bool
    var providerUserInfo: [ProviderUserInfo]
    /// For a recovered address: the address the account had been changed to.
    var newEmail: String?
    var idToken: String?
    var refreshToken: String?
    var expiresIn: String?
}

/// An account as `accounts:lookup` returns it (never the password hash).
struct UserInfo: Codable, Sendable {
    var localId: String
    var email: String?
    var displayName: String?
    var photoUrl: String?
    /// Milliseconds since 1970, as a decimal string.
    var createdAt: String
    var lastLoginAt: String?
    /// Seconds since 1970, as a decimal string.
    var validSince: String
    var tenantId: String?
    var emailVerified: Bool
    var disabled: Bool
    var emailLinkSignin: Bool
    var passwordUpdatedAt: Int64?
    var providerUserInfo: [ProviderUserInfo]
    var phoneNumber: String?
    /// The custom claims' JSON text.
    var customAttributes: String?
    /// RFC 3339, as Google writes it (`2026-11-22T20:30:00.123Z`).
    var lastRefreshAt: String?
    /// For admins only: the password hash and its salt, base64.
    var passwordHash: String?
    var salt: String?
}

/// `accounts:lookup`: no `users` at all when none matched.
struct GetAccountInfoResponse: Codable, Sendable {
    var kind = "identitytoolkit#GetAccountInfoResponse"
    var users: [UserInfo]?
}

/// `accounts:delete`.
struct DeleteAccountResponse: Codable, Sendable {
    var kind = "identitytoolkit#DeleteAccountResponse"
}

/// `accounts:createAuthUri`: with enumeration protection, only the session.
struct CreateAuthUriResponse: Codable, Sendable {
    var kind = "identitytoolkit#CreateAuthUriResponse"
    var sessionId: String
    var registered: Bool?
    var signinMethods: [String]?
    var allProviders: [String]?
}

/// `accounts:sendOobCode`; the code and link only for an admin's `returnOobLink`.
package struct GetOobConfirmationCodeResponse: Codable, Sendable {
    var kind = "identitytoolkit#GetOobConfirmationCodeResponse"
    var email: String
    package var oobCode: String?
    var oobLink: String?
}

/// `accounts:resetPassword`: checking a code, or spending a password-reset code.
struct ResetPasswordResponse: Codable, Sendable {
    var kind = "identitytoolkit#ResetPasswordResponse"
    var requestType: String
    var email: String?
    var newEmail: String?
}

/// `GET /v1/projects` (and v3 `getProjectConfig`).
package struct ProjectConfigResponse: Codable, Sendable {
    var projectId: String
    var authorizedDomains: [String]
}

/// The emulator's outbox, `GET /emulator/v1/projects/{projectID}/oobCodes`.
package struct OobCodesResponse: Codable, Sendable {
    struct Code: Codable, Sendable {
        var email: String
        var oobCode: String
        var oobLink: String
        var requestType: String
    }

    var oobCodes: [Code]
}

/// `accounts:batchGet`: a page of accounts in ID order; `nextPageToken` while more may follow.
struct DownloadAccountResponse: Codable, Sendable {
    var kind = "identitytoolkit#DownloadAccountResponse"
    var users: [UserInfo]?
    var nextPageToken: String?
}

/// `accounts:batchDelete`: one entry per account not deleted.
struct BatchDeleteResponse: Codable, Sendable {
    struct Failure: Codable, Sendable {
        var index: Int
        var localId: String
        var message: String
    }

    var errors: [Failure]?
}

/// `accounts:batchCreate`: one entry per account not imported (note Google's singular `error`).
struct UploadAccountResponse: Codable, Sendable {
    struct Failure: Codable, Sendable {
        var index: Int
        var message: String
    }

    var kind = "identitytoolkit#UploadAccountResponse"
    var error: [Failure]?
}

/// `accounts:query`.
struct QueryUserInfoResponse: Codable, Sendable {
    /// A decimal string (int64 in JSON).
    var recordsCount: String
    var userInfo: [UserInfo]?
}

/// `accounts:signInWithCustomToken`.
struct VerifyCustomTokenResponse: Codable, Sendable, CarriesSession {
    var kind = "identitytoolkit#VerifyCustomTokenResponse"
    var isNewUser: Bool
    var idToken: String?
    var refreshToken: String?
    var expiresIn: String?
}

/// `projects/{projectID}:createSessionCookie`.
struct SessionCookieResponse: Codable, Sendable {
    var sessionCookie: String
}

/// The emulator's project configuration (`/emulator/v1/projects/{projectID}/config`).
package struct EmulatorProjectConfig: Codable, Sendable {
    struct SignIn: Codable, Sendable {
        var allowDuplicateEmails: Bool?
    }

    struct EmailPrivacy: Codable, Sendable {
        var enableImprovedEmailPrivacy: Bool?
    }

    var signIn: SignIn?
    var emailPrivacyConfig: EmailPrivacy?
}

/// `{}`: what the emulator's reset answers.
struct EmptyResponse: Codable, Sendable {}
