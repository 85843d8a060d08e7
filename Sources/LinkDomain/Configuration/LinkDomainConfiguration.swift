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
    /// In a deployment, the keys the embedded backend accepts on client calls (`?key=` or
    /// `X-Goog-Api-Key`): `backend.apiKey` when set, and `backend.apiKeys`. In development any key is accepted.
    public var clientAPIKeys: [String]
    /// In a deployment, the bearer tokens of admin calls (`Authorization: Bearer KEY`): `backend.adminKeys`.
    public var adminKeys: [String]
    /// Keeps development mode (the emulator's powers) on a configuration that would otherwise be a
    /// deployment: for a CI container that binds every interface. Logged loudly at start.
    public var forceDevelopmentMode: Bool
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
    /// The scrypt cost of the embedded backend (nil: the hasher's own); tests lower it.
    var passwordHashRounds: Int?
    /// A second host serving the same association file, that "Open in the app" buttons point at:
    /// iOS opens universal links only when they lead to a different domain from the current page.
    public var pivotBaseURL: String?
    /// A custom email action handler path (besides `/__/auth/action`), as set in the Firebase console.
    public var actionPath: String?
    /// A directory of templates, string tables and the stylesheet that replaces the built-in ones.
    public var publicDirectory: String?
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
        publicDirectory: String? = nil,
        formSecret: String? = nil,
        backendURL: String? = nil,
        backendTimeoutSeconds: Int = 10,
        shortLinkAPIKeys: [String] = [],
        postgresURL: String? = nil,
        requestsPerMinute: Int = 120,
        burst: Int = 30,
        trustedProxies: [String] = [],
        tls: TLSFiles? = nil,
        idleTimeoutSeconds: Int = 30,
        clientAPIKeys: [String] = [],
        adminKeys: [String] = [],
        forceDevelopmentMode: Bool = false
    ) {
        self.clientAPIKeys = clientAPIKeys
        self.adminKeys = adminKeys
        self.forceDevelopmentMode = forceDevelopmentMode
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

    /// Development when the server binds a loopback address and `publicBaseURL` is `http://` on a
    /// loopback host (or an operator forces it); anything else is a deployment.
    public var mode: ServingMode {
        forceDevelopmentMode || isLoopbackOnly ? .development : .deployment
    }

    /// Development mode was forced on a configuration that reaches beyond this machine.
    public var isDevelopmentForced: Bool { forceDevelopmentMode && !isLoopbackOnly }

    /// Bound to loopback and addressed as loopback over plain HTTP: nobody else can reach it.
    var isLoopbackOnly: Bool {
        guard tls == nil, let address = WebAddress(publicBaseURL), address.scheme == "http", address.isLoopback else { return false }
        return ServingMode.isLoopbackBind(host)
    }

    /// The link domain's host name (no port).
    public var publicHost: String {
        let authority = publicBaseURL.split(separator: "/").dropFirst().first.map(String.init) ?? ""
        if authority.hasPrefix("[") { return String(authority.prefix { $0 != "]" }) + "]" }
        return authority.split(separator: ":").first.map(String.init) ?? authority
    }
}

/// Who may use the server's powers.
public enum ServingMode: String, Sendable, Equatable {
    /// A developer's machine: the Firebase Auth emulator's contract holds (codes listed, `Bearer
    /// owner` is an admin, any API key, links logged).
    case development
    /// Anything others can reach: configured keys only, no code listing, nothing secret in logs.
    case deployment

    /// `localhost`, `127.0.0.0/8` and `::1`.
    static func isLoopbackBind(_ host: String) -> Bool {
        let host = host.lowercased()
        if host == "localhost" || host == "::1" || host == "[::1]" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
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
