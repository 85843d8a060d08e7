/// The code requests: `accounts:sendOobCode` with its ActionCodeSettings, and
/// `accounts:resetPassword` (checking a code, or spending it with a new password).

/// The ActionCodeSettings fields of `accounts:sendOobCode`, at the top level of its body as
/// Identity Toolkit has them: where the link continues, and which app may open it.
package struct ActionCodeSettingsFields: Codable, Sendable, Equatable {
    package var continueURL: String?
    package var canHandleCodeInApp: Bool?
    package var iOSBundleID: String?
    package var iOSAppStoreID: String?
    package var androidPackageName: String?
    package var androidInstallApp: Bool?
    package var androidMinimumVersion: String?
    package var androidMinimumVersionCode: String?
    /// The host the link should be on; this service puts links on its own.
    package var linkDomain: String?
    package var dynamicLinkDomain: String?

    package init(continueURL: String? = nil) {
        self.continueURL = continueURL
    }

    enum CodingKeys: String, CodingKey {
        case continueURL = "continueUrl", canHandleCodeInApp, iOSBundleID = "iOSBundleId", iOSAppStoreID = "iOSAppStoreId"
        case androidPackageName, androidInstallApp, androidMinimumVersion, androidMinimumVersionCode, linkDomain, dynamicLinkDomain
    }

    package init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        continueURL = fields.string(.continueURL)
        canHandleCodeInApp = fields.bool(.canHandleCodeInApp)
        iOSBundleID = fields.string(.iOSBundleID)
        iOSAppStoreID = fields.string(.iOSAppStoreID)
        androidPackageName = fields.string(.androidPackageName)
        androidInstallApp = fields.bool(.androidInstallApp)
        androidMinimumVersion = fields.string(.androidMinimumVersion)
        androidMinimumVersionCode = fields.string(.androidMinimumVersionCode)
        linkDomain = fields.string(.linkDomain)
        dynamicLinkDomain = fields.string(.dynamicLinkDomain)
    }

    /// Whether the settings name an app or let one handle the code: the mail's link is then the
    /// app form (`/__/auth/links?link=`), as Firebase's mails are.
    package var opensInApp: Bool { canHandleCodeInApp == true || iOSBundleID != nil || androidPackageName != nil }

    /// Whether any Android-only option is set (they need `androidPackageName`).
    package var namesAndroidOptions: Bool { androidInstallApp != nil || androidMinimumVersion != nil || androidMinimumVersionCode != nil }
}

/// `accounts:sendOobCode`: a code (and its mail, unless an admin asks for the link) for a password
/// reset, an email sign-in, a verification or an email change.
package struct SendOobCodeRequest: Codable, Sendable, Equatable {
    /// As sent: a missing type and an unknown one are different refusals.
    package var requestType: String?
    package var email: String?
    package var idToken: String?
    package var newEmail: String?
    /// An admin's "give me the link, send no mail".
    package var returnOobLink: Bool?
    package var settings = ActionCodeSettingsFields()
    package var tenantID: String?
    /// The language a client without `X-Firebase-Locale` may name.
    package var languageCode: String?

    package init(
        requestType: OobRequestType, email: String? = nil, newEmail: String? = nil, returnOobLink: Bool? = nil,
        settings: ActionCodeSettingsFields = ActionCodeSettingsFields(), tenantID: String? = nil
    ) {
        self.requestType = requestType.rawValue
        self.email = email
        self.newEmail = newEmail
        self.returnOobLink = returnOobLink
        self.settings = settings
        self.tenantID = tenantID
    }

    enum CodingKeys: String, CodingKey {
        case requestType, email, idToken, newEmail, returnOobLink, tenantID = "tenantId", languageCode = "lang"
    }

    package init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        requestType = fields.string(.requestType)
        email = fields.string(.email)
        idToken = fields.string(.idToken)
        newEmail = fields.string(.newEmail)
        returnOobLink = fields.bool(.returnOobLink)
        settings = try ActionCodeSettingsFields(from: decoder)
        tenantID = fields.string(.tenantID)
        languageCode = fields.string(.languageCode)
    }

    /// The body as Identity Toolkit takes it: the settings beside the other fields, not nested.
    package func encode(to encoder: any Encoder) throws {
        var fields = encoder.container(keyedBy: CodingKeys.self)
        try fields.encodeIfPresent(requestType, forKey: .requestType)
        try fields.encodeIfPresent(email, forKey: .email)
        try fields.encodeIfPresent(idToken, forKey: .idToken)
        try fields.encodeIfPresent(newEmail, forKey: .newEmail)
        try fields.encodeIfPresent(returnOobLink, forKey: .returnOobLink)
        try fields.encodeIfPresent(tenantID, forKey: .tenantID)
        try settings.encode(to: encoder)
    }
}

/// `accounts:resetPassword`: with `newPassword` it spends the code; without, it only checks it.
package struct ResetPasswordRequest: Decodable, Sendable, Equatable {
    package var oobCode: String?
    package var newPassword: String?

    package init(oobCode: String, newPassword: String? = nil) {
        self.oobCode = oobCode
        self.newPassword = newPassword
    }

    enum CodingKeys: String, CodingKey { case oobCode, newPassword }

    package init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        oobCode = fields.string(.oobCode)
        newPassword = fields.string(.newPassword)
    }
}
