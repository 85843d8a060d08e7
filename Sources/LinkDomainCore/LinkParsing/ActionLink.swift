/// What an email action link asks for: the Firebase action handler parameters, plus the hints a
/// legacy Dynamic Link carried about which app should open it.
public struct ActionLink: Sendable, Equatable {
    public var mode: ActionMode
    public var oobCode: String
    public var apiKey: String?
    public var continueURL: String?
    public var languageCode: String?
    public var tenantID: String?
    public var linkDomain: String?
    public var hints: PlatformHints
    /// Which of the link shapes it arrived in.
    public var shape: LinkShape

    public init(
        mode: ActionMode, oobCode: String, apiKey: String? = nil, continueURL: String? = nil, languageCode: String? = nil,
        tenantID: String? = nil, linkDomain: String? = nil, hints: PlatformHints = .init(), shape: LinkShape = .actionURL
    ) {
        self.mode = mode
        self.oobCode = oobCode
        self.apiKey = apiKey
        self.continueURL = continueURL
        self.languageCode = languageCode
        self.tenantID = tenantID
        self.linkDomain = linkDomain
        self.hints = hints
        self.shape = shape
    }
}

/// The `mode` of an action link.
public enum ActionMode: String, Sendable, CaseIterable {
    case signIn
    case resetPassword
    case verifyEmail
    case recoverEmail
    case verifyAndChangeEmail
    case revertSecondFactorAddition
}

/// How the link reached us.
public enum LinkShape: String, Sendable {
    /// `/__/auth/links?link=<action URL>`: the mobile email link since Dynamic Links shut down.
    case authLinks
    /// The action URL itself (`/__/auth/action?mode=...`, or a custom action path).
    case actionURL
    /// The Firebase Auth emulator's `/emulator/action?...`.
    case emulatorAction
    /// A Dynamic Links long link: `?link=<action URL>&apn=...&ibi=...`.
    case legacyDynamicLink
    /// An iOS custom-scheme hand-off carrying `deep_link_id`.
    case deepLinkID
}

/// Why a URL is not an action link.
public enum LinkParseError: Error, Sendable, Equatable {
    /// No `mode` and `oobCode` anywhere in the URL or the links nested in it.
    case notAnActionLink
    /// A `mode` this service does not know.
    case unknownMode(String)
    /// A parameter that is present but unusable (empty, over its length limit, not a URL).
    case invalidParameter(String)
}

/// A Dynamic Links long link whose deep link is not an email action (a product page, an invite):
/// where it leads, and how each platform should get there.
public struct DynamicLink: Sendable, Equatable {
    /// The `link` parameter: where the visitor ends up when no app takes the link.
    public var deepLink: String
    public var hints: PlatformHints

    public init(deepLink: String, hints: PlatformHints = .init()) {
        self.deepLink = deepLink
        self.hints = hints
    }
}
