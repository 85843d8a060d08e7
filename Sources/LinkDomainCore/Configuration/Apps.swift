/// An iOS app that opens this domain's links.
public struct AppleApp: Sendable, Equatable {
    /// The 10-character Apple Developer Team ID.
    public var teamID: String
    public var bundleID: String
    /// The numeric App Store ID, used for "get the app" links.
    public var appStoreID: String?
    /// Path patterns the app handles besides the email-action paths; `NOT /path` excludes.
    public var paths: [String]
    /// List the app under `webcredentials` (shared passwords / passkeys).
    public var webcredentials: Bool
    /// List `<bundleID>.Clip` under `appclips`.
    public var appClip: Bool

    public init(
        teamID: String,
        bundleID: String,
        appStoreID: String? = nil,
        paths: [String] = [],
        webcredentials: Bool = false,
        appClip: Bool = false
    ) {
        self.teamID = teamID
        self.bundleID = bundleID
        self.appStoreID = appStoreID
        self.paths = paths
        self.webcredentials = webcredentials
        self.appClip = appClip
    }

    /// `TEAMID.bundle.id`, as association files name apps.
    public var appID: String { "\(teamID).\(bundleID)" }
}

/// An Android app that opens this domain's links.
public struct AndroidApp: Sendable, Equatable {
    public var packageName: String
    /// SHA-256 signing-certificate fingerprints, normalised to upper-case hex pairs joined by `:`.
    public var fingerprints: [String]
    /// Share this domain's passwords and passkeys with the app (`get_login_creds`).
    public var webcredentials: Bool

    public init(packageName: String, fingerprints: [String], webcredentials: Bool = false) {
        self.packageName = packageName
        self.fingerprints = fingerprints
        self.webcredentials = webcredentials
    }
}
