/// The admin requests beyond single accounts: importing (`accounts:batchCreate`), listing
/// (`accounts:batchGet`), `accounts:batchDelete`, `accounts:query`, and the Firebase Auth
/// emulator's configuration patch.

/// `accounts:batchCreate`: accounts to import, and the algorithm their password hashes are in.
package struct BatchCreateRequest: Decodable, Sendable, Equatable {
    /// Each entry an account, or nil where the entry is not an object; nil when `users` is not a list.
    package var users: [ImportedAccount?]?
    package var allowOverwrite: Bool?
    package var hashAlgorithm: String?
    /// Base64, as Firebase's export gives them.
    package var signerKey: String?
    package var saltSeparator: String?
    package var rounds = WholeNumber.absent
    package var memoryCost = WholeNumber.absent
    package var cpuMemCost = WholeNumber.absent
    package var blockSize = WholeNumber.absent
    package var parallelization = WholeNumber.absent
    package var dkLen = WholeNumber.absent

    enum CodingKeys: String, CodingKey {
        case users, allowOverwrite, hashAlgorithm, signerKey, saltSeparator, rounds, memoryCost, cpuMemCost, blockSize, parallelization, dkLen
    }

    package init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        users = fields.entries(.users, of: ImportedAccount.self)
        allowOverwrite = fields.bool(.allowOverwrite)
        hashAlgorithm = fields.string(.hashAlgorithm)
        signerKey = fields.string(.signerKey)
        saltSeparator = fields.string(.saltSeparator)
        rounds = fields.wholeNumber(.rounds)
        memoryCost = fields.wholeNumber(.memoryCost)
        cpuMemCost = fields.wholeNumber(.cpuMemCost)
        blockSize = fields.wholeNumber(.blockSize)
        parallelization = fields.wholeNumber(.parallelization)
        dkLen = fields.wholeNumber(.dkLen)
    }
}

/// One account of an import, as sent; the import checks each field and refuses the account, not the batch.
package struct ImportedAccount: Decodable, Sendable, Equatable {
    package var localID: String?
    package var email: String?
    package var phoneNumber: String?
    /// `customAttributes` as JSON text (sent as a string or an object).
    package var customAttributes: String?
    package var emailVerified: Bool?
    package var disabled: Bool?
    package var displayName: String?
    package var photoURL: String?
    /// Milliseconds since 1970.
    package var createdAt = WholeNumber.absent
    package var lastLoginAt = WholeNumber.absent
    /// Base64.
    package var passwordHash: String?
    package var salt: String?
    /// Each entry a provider, or nil where the entry is not an object (skipped).
    package var providerUserInfo: [ImportedProvider?] = []

    enum CodingKeys: String, CodingKey {
        case localID = "localId", email, phoneNumber, customAttributes, emailVerified, disabled, displayName, photoURL = "photoUrl"
        case createdAt, lastLoginAt, passwordHash, salt, providerUserInfo
    }

    package init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        localID = fields.string(.localID)
        email = fields.string(.email)
        phoneNumber = fields.string(.phoneNumber)
        customAttributes = fields.value(.customAttributes)?.jsonText
        emailVerified = fields.bool(.emailVerified)
        disabled = fields.bool(.disabled)
        displayName = fields.string(.displayName)
        photoURL = fields.string(.photoURL)
        createdAt = fields.wholeNumber(.createdAt)
        lastLoginAt = fields.wholeNumber(.lastLoginAt)
        passwordHash = fields.string(.passwordHash)
        salt = fields.string(.salt)
        providerUserInfo = fields.entries(.providerUserInfo, of: ImportedProvider.self) ?? []
    }
}

/// A federated identity of an imported account.
package struct ImportedProvider: Decodable, Sendable, Equatable {
    package var providerID: String?
    package var rawID: String?
    package var email: String?
    package var displayName: String?
    package var photoURL: String?

    enum CodingKeys: String, CodingKey { case providerID = "providerId", rawID = "rawId", email, displayName, photoURL = "photoUrl" }

    package init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        providerID = fields.string(.providerID)
        rawID = fields.string(.rawID)
        email = fields.string(.email)
        displayName = fields.string(.displayName)
        photoURL = fields.string(.photoURL)
    }
}

/// `GET accounts:batchGet?maxResults=N&nextPageToken=ID`.
package struct BatchGetRequest: Decodable, Sendable, Equatable {
    package var maxResults = WholeNumber.absent
    package var nextPageToken: String?

    enum CodingKeys: String, CodingKey { case maxResults, nextPageToken }

    package init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        maxResults = fields.wholeNumber(.maxResults)
        nextPageToken = fields.string(.nextPageToken)
    }
}

/// `accounts:batchDelete`.
package struct BatchDeleteRequest: Decodable, Sendable, Equatable {
    package var localIDs: [String] = []
    /// Delete accounts that are not disabled too.
    package var force: Bool?

    enum CodingKeys: String, CodingKey { case localIDs = "localIds", force }

    package init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        localIDs = fields.strings(.localIDs)
        force = fields.bool(.force)
    }
}

/// `accounts:query`: every account (or their count), in ID order; expressions are not supported.
package struct QueryAccountsRequest: Decodable, Sendable, Equatable {
    /// Whether a non-empty `expression` list came (refused: this backend does not filter).
    package var filters = false
    package var limit = WholeNumber.absent
    package var offset = WholeNumber.absent
    /// `DESC` reverses the order.
    package var order: String?
    package var returnUserInfo: Bool?

    enum CodingKeys: String, CodingKey { case expression, limit, offset, order, returnUserInfo }

    package init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        if case .list(let expressions)? = fields.value(.expression) { filters = !expressions.isEmpty }
        limit = fields.wholeNumber(.limit)
        offset = fields.wholeNumber(.offset)
        order = fields.string(.order)
        returnUserInfo = fields.bool(.returnUserInfo)
    }
}

/// `PATCH /emulator/v1/projects/{id}/config`: the project settings a test may change while it runs.
package struct EmulatorConfigPatch: Decodable, Sendable, Equatable {
    /// `emailPrivacyConfig.enableImprovedEmailPrivacy`: enumeration protection on or off.
    package var enableImprovedEmailPrivacy: Bool?
    /// `signIn.allowDuplicateEmails: true`, which this backend cannot do.
    package var allowsDuplicateEmails = false

    enum CodingKeys: String, CodingKey { case emailPrivacyConfig, signIn }
    enum PrivacyKeys: String, CodingKey { case enableImprovedEmailPrivacy }
    enum SignInKeys: String, CodingKey { case allowDuplicateEmails }

    package init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: CodingKeys.self)
        if let privacy = try? fields.nestedContainer(keyedBy: PrivacyKeys.self, forKey: .emailPrivacyConfig),
            case .boolean(let improved)? = privacy.value(.enableImprovedEmailPrivacy)
        {
            enableImprovedEmailPrivacy = improved
        }
        if let signIn = try? fields.nestedContainer(keyedBy: SignInKeys.self, forKey: .signIn),
            case .boolean(true)? = signIn.value(.allowDuplicateEmails)
        {
            allowsDuplicateEmails = true
        }
    }
}
