/// The account requests: `accounts:signUp` (and the admin create call), `accounts:update`,
/// `accounts:delete`, `accounts:lookup`, `accounts:createAuthUri`. Each reads its fields as
/// Identity Toolkit does (``KeyedDecodingContainer/string(_:)`` and the other lenient readers).

/// Fields of features this backend does not have (second factors, linking federated providers):
/// a request that sends one is refused, never accepted with the field dropped.
package enum UnsupportedField: String, CodingKey, CaseIterable {
    case mfaInfo, mfa, linkProviderUserInfo, provider, upgradeToFederatedLogin

    /// The first such field `decoder`'s object sends.
    static func first(in decoder: any Decoder) throws -> String? {
        let container = try decoder.container(keyedBy: Self.self)
        return allCases.first(where: container.has)?.rawValue
    }
}

/// `accounts:signUp`, and the admin `accounts` call that creates a user.
package struct SignUpRequest: Decodable, Sendable, Equatable {
    package var unsupportedField: String?
    /// An admin may choose the new account's ID; `sendsLocalID` is whether any `localId` came at all.
    package var localID: String?
    package var sendsLocalID = false
    /// As sent: an empty address is refused, not read as none.
    package var email: String?
    package var password: String?
    /// An anonymous user's token: signing up with it upgrades that account.
    package var idToken: String?
    package var sendsIDToken = false
    package var emailVerified: Bool?
    package var displayName: String?
    package var photoURL: String?
    package var disabled: Bool?
    package var phoneNumber: String?
    /// `customAttributes` as JSON text (sent as a string or an object).
    package var customAttributes: String?

    package init(email: String? = nil, password: String? = nil) {
        self.email = email
        self.password = password
    }

    enum CodingKeys: String, CodingKey {
        case localID = "localId", email, password, idToken, emailVerified, displayName, photoURL = "photoUrl", disabled
        case phoneNumber, customAttributes
    }

    package init(from decoder: any Decoder) throws {
        unsupportedField = try UnsupportedField.first(in: decoder)
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        localID = fields.string(.localID)
        sendsLocalID = fields.has(.localID)
        email = fields.rawString(.email)
        password = fields.rawString(.password)
        idToken = fields.string(.idToken)
        sendsIDToken = fields.has(.idToken)
        emailVerified = fields.bool(.emailVerified)
        displayName = fields.string(.displayName)
        photoURL = fields.string(.photoURL)
        disabled = fields.bool(.disabled)
        phoneNumber = fields.string(.phoneNumber)
        customAttributes = fields.value(.customAttributes)?.jsonText
    }
}

/// An account attribute `accounts:update` can remove (`deleteAttribute`).
package enum DeletableAttribute: String, Sendable, Equatable {
    case displayName = "DISPLAY_NAME", photoURL = "PHOTO_URL", password = "PASSWORD", email = "EMAIL"
}

/// `accounts:update`: applies a code (`oobCode`), or changes the account an admin names by
/// `localId` or a user proves with `idToken`.
package struct UpdateAccountRequest: Decodable, Sendable, Equatable {
    package var oobCode: String?
    package var unsupportedField: String?
    package var localID: String?
    package var idToken: String?
    /// As sent: an empty address is refused, not read as none.
    package var email: String?
    package var emailVerified: Bool?
    package var password: String?
    package var displayName = FieldUpdate<String>.keep
    package var photoURL = FieldUpdate<String>.keep
    package var deleteAttributes: [DeletableAttribute] = []
    /// Provider IDs to unlink: `phone`, `password` or an imported federated provider's.
    package var deleteProviders: [String] = []
    /// Seconds since 1970 before which sessions end (admins); a user who sends it ends their other sessions.
    package var validSince = WholeNumber.absent
    /// `disableUser`, or `disabled` as some clients write it.
    package var disabled: Bool?
    /// As sent: an empty number removes the account's.
    package var phoneNumber: String?
    /// Custom claims as sent (a string of JSON or an object); admins only.
    package var customAttributes: JSONValue?
    package var returnSecureToken: Bool?

    package init(oobCode: String? = nil, localID: String? = nil, disabled: Bool? = nil, validSince: Int64? = nil) {
        self.oobCode = oobCode
        self.localID = localID
        self.disabled = disabled
        self.validSince = validSince.map(WholeNumber.value) ?? .absent
    }

    enum CodingKeys: String, CodingKey {
        case oobCode, localID = "localId", idToken, email, emailVerified, password, displayName, photoURL = "photoUrl"
        case deleteAttribute, deleteProvider, validSince, disableUser, disabled, phoneNumber, customAttributes, returnSecureToken
    }

    package init(from decoder: any Decoder) throws {
        unsupportedField = try UnsupportedField.first(in: decoder)
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        oobCode = fields.string(.oobCode)
        localID = fields.string(.localID)
        idToken = fields.string(.idToken)
        email = fields.rawString(.email)
        emailVerified = fields.bool(.emailVerified)
        password = fields.string(.password)
        displayName = fields.stringUpdate(.displayName)
        photoURL = fields.stringUpdate(.photoURL)
        // Names this backend does not know remove nothing, as Google ignores them.
        deleteAttributes = fields.strings(.deleteAttribute).compactMap(DeletableAttribute.init(rawValue:))
        deleteProviders = fields.strings(.deleteProvider)
        validSince = fields.wholeNumber(.validSince)
        disabled = fields.bool(.disableUser) ?? fields.bool(.disabled)
        phoneNumber = fields.rawString(.phoneNumber)
        customAttributes = fields.value(.customAttributes)
        returnSecureToken = fields.bool(.returnSecureToken)
    }
}

/// `accounts:delete`: the account an admin names by `localId`, or the user's own by `idToken`.
package struct DeleteAccountRequest: Decodable, Sendable, Equatable {
    package var localID: String?
    package var idToken: String?

    package init(localID: String? = nil, idToken: String? = nil) {
        self.localID = localID
        self.idToken = idToken
    }

    enum CodingKeys: String, CodingKey { case localID = "localId", idToken }

    package init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        localID = fields.string(.localID)
        idToken = fields.string(.idToken)
    }
}

/// An identity at a federated provider, as an import recorded it.
package struct FederatedIdentity: Sendable, Equatable {
    package var providerID: String
    package var rawID: String
}

/// `accounts:lookup`: the user's own account by `idToken`, or (admins) accounts by any of their identifiers.
package struct LookupRequest: Decodable, Sendable, Equatable {
    package var idToken: String?
    package var localIDs: [String] = []
    package var emails: [String] = []
    package var phoneNumbers: [String] = []
    /// Entries naming both a provider and an ID; others name nothing.
    package var federatedUserIDs: [FederatedIdentity] = []

    enum CodingKeys: String, CodingKey {
        case idToken, localIDs = "localId", emails = "email", phoneNumbers = "phoneNumber", federatedUserID = "federatedUserId"
    }

    /// One `federatedUserId` entry as sent.
    private struct FederatedEntry: Decodable {
        var identity: FederatedIdentity?

        enum CodingKeys: String, CodingKey { case providerID = "providerId", rawID = "rawId" }

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: CodingKeys.self)
            guard let provider = fields.string(.providerID), let raw = fields.string(.rawID) else { return }
            identity = FederatedIdentity(providerID: provider, rawID: raw)
        }
    }

    package init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        idToken = fields.string(.idToken)
        localIDs = fields.strings(.localIDs)
        emails = fields.strings(.emails)
        phoneNumbers = fields.strings(.phoneNumbers)
        federatedUserIDs = (fields.entries(.federatedUserID, of: FederatedEntry.self) ?? []).compactMap { $0?.identity }
    }
}

/// `accounts:createAuthUri`, what `fetchSignInMethodsForEmail` calls.
package struct CreateAuthURIRequest: Decodable, Sendable, Equatable {
    /// `identifier`, or `email` as older clients send it.
    package var identifier: String?
    package var continueURI: String?
    package var sessionID: String?

    enum CodingKeys: String, CodingKey { case identifier, email, continueURI = "continueUri", sessionID = "sessionId" }

    package init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        identifier = fields.string(.identifier) ?? fields.string(.email)
        continueURI = fields.string(.continueURI)
        sessionID = fields.string(.sessionID)
    }
}
