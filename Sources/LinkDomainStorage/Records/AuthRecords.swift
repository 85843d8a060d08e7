import LinkDomainCore

/// An account of the embedded backend. Times are milliseconds since 1970 unless named otherwise.
public struct UserRecord: Codable, Sendable, Equatable {
    /// "" for the project itself; a tenant ID for multi-tenant projects.
    public var tenantID: String
    public var localID: String
    /// Lower-cased; unique per tenant.
    public var email: String?
    public var emailVerified: Bool
    /// A self-describing password hash (``PasswordHasher``); nil when the account has no password.
    public var passwordHash: String?
    public var passwordUpdatedAt: Int64?
    public var displayName: String?
    public var photoURL: String?
    public var disabled: Bool
    /// Whether the account has signed in with an email link (so `emailLink` is a sign-in method).
    public var emailLinkSignIn: Bool
    public var createdAt: Int64
    public var lastLoginAt: Int64?
    /// Seconds since 1970: tokens issued before this are revoked.
    public var validSince: Int64
    /// E.164 (`+15555550100`); unique per tenant. Stored as Google stores it; no SMS is ever sent.
    public var phoneNumber: String?
    /// The custom claims as the JSON object text an admin set (`{"admin":true}`); nil for none.
    public var customAttributes: String?
    /// When an ID token was last issued for the account (sign-in or refresh).
    public var lastRefreshAt: Int64?
    /// Federated sign-in providers brought in by an import, as a JSON list of `ProviderUserInfo`.
    public var providerData: String?
    /// The language the account's apps last asked in (`X-Firebase-Locale`), a tag the pages speak:
    /// the language of a mail sent without one (the console's, an address-change notice).
    public var languageCode: String?
    /// Counts the account's changes: a write names the version it read and fails if another
    /// write came between (``StoreError/conflict``), so no operation writes back a stale account.
    public var version: Int64

    public init(
        tenantID: String, localID: String, email: String?, emailVerified: Bool = false, passwordHash: String? = nil,
        passwordUpdatedAt: Int64? = nil, displayName: String? = nil, photoURL: String? = nil, disabled: Bool = false,
        emailLinkSignIn: Bool = false, createdAt: Int64, lastLoginAt: Int64? = nil, validSince: Int64, phoneNumber: String? = nil,
        customAttributes: String? = nil, lastRefreshAt: Int64? = nil, providerData: String? = nil, languageCode: String? = nil,
        version: Int64 = 0
    ) {
        self.languageCode = languageCode
        self.version = version
        self.phoneNumber = phoneNumber
        self.customAttributes = customAttributes
        self.lastRefreshAt = lastRefreshAt
        self.providerData = providerData
        self.tenantID = tenantID
        self.localID = localID
        self.email = email
        self.emailVerified = emailVerified
        self.passwordHash = passwordHash
        self.passwordUpdatedAt = passwordUpdatedAt
        self.displayName = displayName
        self.photoURL = photoURL
        self.disabled = disabled
        self.emailLinkSignIn = emailLinkSignIn
        self.createdAt = createdAt
        self.lastLoginAt = lastLoginAt
        self.validSince = validSince
    }
}

extension UserRecord {
    /// The columns an update may change (the keys and the creation time never change).
    package enum Field: CaseIterable {
        case email, emailVerified, passwordHash, passwordUpdatedAt, displayName, photoURL, disabled, emailLinkSignIn, lastLoginAt,
            validSince, phoneNumber, customAttributes, lastRefreshAt, providerData, languageCode
    }

    /// The fields in which this account differs from `read`: what an update writes.
    package func changedFields(from read: UserRecord) -> [Field] {
        Field.allCases.filter { field in
            switch field {
            case .email: email != read.email
            case .emailVerified: emailVerified != read.emailVerified
            case .passwordHash: passwordHash != read.passwordHash
            case .passwordUpdatedAt: passwordUpdatedAt != read.passwordUpdatedAt
            case .displayName: displayName != read.displayName
            case .photoURL: photoURL != read.photoURL
            case .disabled: disabled != read.disabled
            case .emailLinkSignIn: emailLinkSignIn != read.emailLinkSignIn
            case .lastLoginAt: lastLoginAt != read.lastLoginAt
            case .validSince: validSince != read.validSince
            case .phoneNumber: phoneNumber != read.phoneNumber
            case .customAttributes: customAttributes != read.customAttributes
            case .lastRefreshAt: lastRefreshAt != read.lastRefreshAt
            case .providerData: providerData != read.providerData
            case .languageCode: languageCode != read.languageCode
            }
        }
    }

    /// Ends every session begun before `now` (milliseconds), this very second's included.
    ///
    /// `validSince` is in whole seconds (as Google keeps it, and as an ID token's `iat` is): the
    /// next whole second, so that a token issued earlier in this second is refused too. Sessions
    /// begun after the change wait for that second (``AccountService/newSession(for:provider:now:extraClaims:)``).
    package mutating func revokeSessions(at now: Int64) {
        validSince = Self.validSince(revokingAt: now)
    }

    /// The `validSince` (seconds) that ends every session made up to `now` (milliseconds): rounded up.
    package static func validSince(revokingAt now: Int64) -> Int64 {
        let (seconds, remainder) = now.quotientAndRemainder(dividingBy: 1000)
        return remainder > 0 ? seconds + 1 : seconds
    }
}

/// A single-use out-of-band code, bound to an email address and a request type.
public struct OobCodeRecord: Codable, Sendable, Equatable {
    public var code: String
    public var projectID: String
    public var tenantID: String
    public var requestType: OobRequestType
    /// The address the code was sent to.
    public var email: String
    /// For VERIFY_AND_CHANGE_EMAIL, the address to change to; for RECOVER_EMAIL, the address to undo.
    public var newEmail: String?
    public var localID: String?
    /// The action link as mailed.
    public var link: String
    public var createdAt: Int64
    public var expiresAt: Int64
    /// Whether the ActionCodeSettings named an app (`iOSBundleId`, `androidPackageName`): a sign-in
    /// opened on a computer then offers the phone first. Nil for codes stored before it was kept.
    public var askedByApp: Bool?

    public init(
        code: String, projectID: String, tenantID: String, requestType: OobRequestType, email: String, newEmail: String?,
        localID: String?, link: String, createdAt: Int64, expiresAt: Int64, askedByApp: Bool? = nil
    ) {
        self.code = code
        self.projectID = projectID
        self.tenantID = tenantID
        self.requestType = requestType
        self.email = email
        self.newEmail = newEmail
        self.localID = localID
        self.link = link
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.askedByApp = askedByApp
    }
}

/// What a page needs of a live code, read on the event loop (``AuthStore/codeWithoutWaiting(_:)``):
/// its kind, its addresses, when it expires and whether an app asked for it. Not the link, the
/// tenant or the account: each column read costs the read an allocation and a copy.
public struct OobCodeSummary: Sendable, Equatable {
    public var requestType: OobRequestType
    public var email: String
    public var newEmail: String?
    public var expiresAt: Int64
    public var askedByApp: Bool?

    public init(requestType: OobRequestType, email: String, newEmail: String?, expiresAt: Int64, askedByApp: Bool?) {
        self.requestType = requestType
        self.email = email
        self.newEmail = newEmail
        self.expiresAt = expiresAt
        self.askedByApp = askedByApp
    }

    public init(_ record: OobCodeRecord) {
        self.init(
            requestType: record.requestType, email: record.email, newEmail: record.newEmail, expiresAt: record.expiresAt,
            askedByApp: record.askedByApp)
    }
}

/// A refresh token: valid while its account exists and `createdAt` is not before the account's `validSince`.
public struct RefreshTokenRecord: Codable, Sendable, Equatable {
    public var token: String
    public var tenantID: String
    public var localID: String
    /// The sign-in that made it (milliseconds): refreshed ID tokens keep it as their `auth_time`.
    public var createdAt: Int64
    /// How that sign-in happened (`password`, `anonymous`, `custom`), which refreshed ID tokens keep.
    public var provider: String?
    /// The claims a custom token added (a JSON object's text), which refreshed ID tokens keep.
    public var claims: String?

    package init(token: String, tenantID: String, localID: String, createdAt: Int64, provider: String? = nil, claims: String? = nil) {
        self.token = token
        self.tenantID = tenantID
        self.localID = localID
        self.createdAt = createdAt
        self.provider = provider
        self.claims = claims
    }
}
