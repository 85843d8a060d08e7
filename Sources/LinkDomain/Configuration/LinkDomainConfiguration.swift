/// Everything LinkDomain needs to know, loaded and validated once at start.
public struct LinkDomainConfiguration: Sendable, Equatable {
    /// The HTTPS origin that mails point at, without a trailing slash: `https://links.example.com`.
    public var publicBaseURL: String
    /// The address the HTTP server binds to.
    public var host: String
    public var port: Int
    /// When set, the server speaks HTTPS itself (HTTP/2 and HTTP/1.1) with this certificate.
    public var tls: TLSFiles?
    /// How long a connection may sit idle, or take to send a request's head or its next body part.
    public var idleTimeoutSeconds: Int
    /// Apple apps, in the order they are listed in the association file.
    public var appleApps: [AppleApp]
    /// A hand-written `apple-app-site-association` file to serve verbatim instead of the generated one.
    public var appleAssociationFile: String?
    /// Android apps, in the order they are listed in `assetlinks.json`.
    public var androidApps: [AndroidApp]
    /// Hosts that continue URLs and redirects may point at (lower case; subdomains are not implied).
    public var authorizedDomains: [String]
    /// The auth backend that codes are forwarded to.
    public var backend: BackendKind
    /// The Firebase project the backend serves (the embedded backend's project ID).
    public var projectID: String
    /// The API key action links carry.
    public var apiKey: String
    /// Whether the embedded backend hides which emails are registered (on by default, as for new Firebase projects).
    public var emailEnumerationProtection: Bool
    /// How long the embedded backend's reset, verification and sign-in codes stay valid.
    public var codeLifetimeSeconds: Int
    /// The SQLite database file (accounts, codes, short links, statistics).
    public var sqlitePath: String
    /// When set, PostgreSQL holds all of that instead, shared by every replica.
    public var postgresURL: String?
    /// Per client address: POSTs and link-API calls allowed a minute, and at once.
    public var requestsPerMinute: Int
    public var burst: Int
    /// Proxies whose `X-Forwarded-For` names the real client (exact IP addresses).
    public var trustedProxies: [String]
    /// scrypt's cost for new password hashes. Not a configuration key: tests lower it so that
    /// hundreds of sign-ups run in seconds; hashes record their own cost, so nothing else changes.
    var passwordHashRounds = PasswordHasher.defaultRounds
    /// A second host serving the same association file, that "Open in the app" buttons point at:
    /// iOS opens universal links only when they lead to a different domain from the current page.
    public var pivotBaseURL: String?
    /// A custom email action handler path (besides `/__/auth/action`), as set in the Firebase console.
    public var actionPath: String?
    /// Where templates, string tables and static assets are.
    public var publicDirectory: String
    /// The key that signs page forms; random per process when nil (set it when running replicas).
    public var formSecret: String?
    /// For `emulator` and `identityToolkit` backends: the backend's base URL.
    public var backendURL: String?
    /// How long a backend call may take.
    public var backendTimeoutSeconds: Int
    /// Keys that may create short links and read link statistics; none means the link API is closed.
    public var shortLinkAPIKeys: [String]

    public init(
        publicBaseURL: String,
        host: String = "127.0.0.1",
        port: Int = 8080,
        appleApps: [AppleApp] = [],
        appleAssociationFile: String? = nil,
        androidApps: [AndroidApp] = [],
        authorizedDomains: [String] = [],
        backend: BackendKind = .embedded,
        projectID: String = "demo-linkdomain",
        apiKey: String = "demo-api-key",
        emailEnumerationProtection: Bool = true,
        codeLifetimeSeconds: Int = 3600,
        sqlitePath: String = "linkdomain.sqlite",
        pivotBaseURL: String? = nil,
        actionPath: String? = nil,
        publicDirectory: String = "Public",
        formSecret: String? = nil,
        backendURL: String? = nil,
        backendTimeoutSeconds: Int = 10,
        shortLinkAPIKeys: [String] = [],
        postgresURL: String? = nil,
        requestsPerMinute: Int = 120,
        burst: Int = 30,
        trustedProxies: [String] = [],
        tls: TLSFiles? = nil,
        idleTimeoutSeconds: Int = 30
    ) {
        self.publicBaseURL = publicBaseURL
        self.host = host
        self.port = port
        self.appleApps = appleApps
        self.appleAssociationFile = appleAssociationFile
        self.androidApps = androidApps
        self.authorizedDomains = authorizedDomains
        self.backend = backend
        self.projectID = projectID
        self.apiKey = apiKey
        self.emailEnumerationProtection = emailEnumerationProtection
        self.codeLifetimeSeconds = codeLifetimeSeconds
        self.sqlitePath = sqlitePath
        self.pivotBaseURL = pivotBaseURL
        self.actionPath = actionPath
        self.publicDirectory = publicDirectory
        self.formSecret = formSecret
        self.backendURL = backendURL
        self.backendTimeoutSeconds = backendTimeoutSeconds
        self.shortLinkAPIKeys = shortLinkAPIKeys
        self.postgresURL = postgresURL
        self.requestsPerMinute = requestsPerMinute
        self.burst = burst
        self.trustedProxies = trustedProxies
        self.tls = tls
        self.idleTimeoutSeconds = idleTimeoutSeconds
    }

    /// The link domain's host name (no port).
    public var publicHost: String {
        let authority = publicBaseURL.split(separator: "/").dropFirst().first.map(String.init) ?? ""
        if authority.hasPrefix("[") { return String(authority.prefix { $0 != "]" }) + "]" }
        return authority.split(separator: ":").first.map(String.init) ?? authority
    }
}

/// A PEM certificate chain (the server's certificate first) and its private key. The server reads
/// both again on SIGHUP.
public struct TLSFiles: Sendable, Equatable {
    public var certificatePath: String
    public var privateKeyPath: String

    public init(certificatePath: String, privateKeyPath: String) {
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
    }
}

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

    public init(packageName: String, fingerprints: [String]) {
        self.packageName = packageName
        self.fingerprints = fingerprints
    }
}

/// Where action codes are verified and spent.
public enum BackendKind: String, Sendable, Equatable, CaseIterable {
    /// The Identity-Toolkit-compatible backend built into LinkDomain (no account needed).
    case embedded
    /// A Firebase Auth emulator.
    case emulator
    /// Google Identity Toolkit (Firebase Auth / Identity Platform).
    case identityToolkit
}
