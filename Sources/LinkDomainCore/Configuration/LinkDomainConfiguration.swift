/// Everything LinkDomain needs to know, loaded and validated once at start.
///
/// Nested like the configuration file (``ConfigurationKeys`` lists every key); settings that
/// exclude each other are enums: the backend and its URL, SQLite or PostgreSQL.
public struct LinkDomainConfiguration: Sendable, Equatable {
    /// The HTTPS origin that mails point at, without a trailing slash: `https://links.example.com`.
    public var publicBaseURL: String
    /// A second host serving the same association file, that "Open in the app" buttons point at:
    /// iOS opens universal links only when they lead to a different domain from the current page.
    public var pivotBaseURL: String?
    /// A custom email action handler path (besides `/__/auth/action`), as set in the Firebase console.
    public var actionPath: String?
    /// A directory of templates, string tables and the stylesheet that replaces the built-in ones.
    public var publicDirectory: String?
    /// The key that signs page forms; random per process when nil (set it when running replicas). Secret.
    public var formSecret: String?
    /// Hosts that continue URLs and redirects may point at (lower case; subdomains are not implied).
    public var authorizedDomains: [String] = []
    public var server = Server()
    public var apple = Apple()
    public var android = Android()
    public var backend = Backend()
    public var storage = Storage.sqlite(path: ConfigurationKeys.defaultSQLitePath)
    public var limits = Limits()
    public var shortLinks = ShortLinks()
    public var console = Console()
    public var mail = Mail()
    public var branding = Branding()
    /// The sign-in helper, `init.json`, the passkey and password-manager files, the admin listener.
    public var authDomain = AuthDomain()
    /// `pages.defaultLanguage`: the language when a request names none spoken here (one of
    /// ``Languages/supported``).
    public var defaultLanguage = "en"
    /// `handoff.lifetimeSeconds`: how long a link handed across an install can be claimed.
    public var handoffLifetimeSeconds = 3600
    /// `storage.timeoutSeconds`: the deadline of one PostgreSQL call, and of the health probe's.
    public var storageTimeoutSeconds = 2
    /// `health.checkIntervalSeconds`: how often the database is probed.
    public var healthCheckSeconds = 1
    /// scrypt's cost for new password hashes (nil: the hasher's own). Not a configuration key:
    /// tests lower it so that hundreds of sign-ups run in seconds; hashes record their own cost.
    package var passwordHashRounds: Int?

    public init(publicBaseURL: String) {
        self.publicBaseURL = publicBaseURL
    }

    /// `server`: where and how the HTTP server listens.
    public struct Server: Sendable, Equatable {
        /// The address the HTTP server binds to.
        public var host = "127.0.0.1"
        public var port = 8080
        /// How long a connection may sit idle, or take to send a request's head or its next body part.
        public var idleTimeoutSeconds = 30
        /// Keeps development mode (the emulator's powers) on a configuration that would otherwise be a
        /// deployment: for a CI container that binds every interface. Logged loudly at start.
        public var forceDevelopmentMode = false
        /// When set, the server speaks HTTPS itself (HTTP/2 and HTTP/1.1) with this certificate.
        public var tls: TLSFiles?
        /// When set, certificates are ordered from this ACME CA (and `tls` is nil).
        public var acme: ACMESettings?
        /// The plain HTTP port beside the TLS one: ACME's http-01, and redirects to `https://`.
        public var httpPort: Int?
        /// Whether the public port speaks TLS: with files, or with certificates ordered by ACME.
        public var terminatesTLS: Bool { tls != nil || acme != nil }
        public init() {}
    }

    /// `apple`: the iOS apps that open this domain's links.
    public struct Apple: Sendable, Equatable {
        /// In the order they are listed in the association file.
        public var apps: [AppleApp] = []
        /// A hand-written `apple-app-site-association` file to serve verbatim instead of the generated one.
        public var associationFile: String?
        public init() {}
    }

    /// `android`: the Android apps that open this domain's links.
    public struct Android: Sendable, Equatable {
        /// In the order they are listed in `assetlinks.json`.
        public var apps: [AndroidApp] = []
        public init() {}
    }

    /// `backend`: where pages check and spend codes, and how the embedded backend behaves.
    public struct Backend: Sendable, Equatable {
        /// Which backend, with the URL of the remote ones.
        public enum Kind: Sendable, Equatable {
            /// Built in: accounts in this service's store, its Identity Toolkit API served here.
            case embedded
            /// A Firebase Auth emulator at this origin.
            case emulator(url: String)
            /// Google Identity Toolkit (a real Firebase project) at this origin.
            case identityToolkit(url: String)

            /// The names `backend.kind` takes.
            package static let names = ["embedded", "emulator", "identityToolkit"]

            /// The backend named `name`, at `url` or the backend's default origin.
            package init?(name: String, url: String?) {
                switch name {
                case "embedded": self = .embedded
                case "emulator": self = .emulator(url: url ?? "http://127.0.0.1:9099")
                case "identityToolkit": self = .identityToolkit(url: url ?? "https://identitytoolkit.googleapis.com")
                default: return nil
                }
            }

            public var name: String {
                switch self {
                case .embedded: "embedded"
                case .emulator: "emulator"
                case .identityToolkit: "identityToolkit"
                }
            }
        }

        public var kind = Kind.embedded
        /// The Firebase project the backend serves (the embedded backend's project ID).
        public var projectID = "demo-linkdomain"
        /// The API key action links carry.
        public var apiKey = "demo-api-key"
        /// In a deployment, the keys the embedded backend accepts on client calls (`?key=` or
        /// `X-Goog-Api-Key`): `backend.apiKey` when set, and `backend.apiKeys`. In development any key is accepted.
        public var clientAPIKeys: [String] = []
        /// In a deployment, the bearer tokens of admin calls (`Authorization: Bearer KEY`). Secret.
        public var adminKeys: [String] = []
        /// Whether the embedded backend hides which emails are registered (on by default, as for new Firebase projects).
        public var emailEnumerationProtection = true
        /// How long the embedded backend's reset, verification and sign-in codes stay valid.
        public var codeLifetimeSeconds = 3600
        /// How long a call to a remote backend may take.
        public var timeoutSeconds = 10
        /// The service account whose key signs custom tokens (and, to reach Google, OAuth assertions).
        public var serviceAccount: ServiceAccount?
        /// Where the keys of the backend's ID tokens are published (a JWK set).
        public var idTokenKeysURL = ConfigurationKeys.googleIDTokenKeysURL
        public init() {}
    }

    /// `storage`: where accounts, codes, short links and statistics live.
    public enum Storage: Sendable, Equatable {
        /// A SQLite file, created on first run.
        case sqlite(path: String)
        /// A PostgreSQL database shared by every replica. The URL holds a password: secret.
        case postgres(url: String)

        package var isSQLite: Bool { if case .sqlite = self { true } else { false } }
    }

    /// `limits`: per client address, POSTs and link-API calls allowed a minute, and at once.
    public struct Limits: Sendable, Equatable {
        public var requestsPerMinute = 120
        public var burst = 30
        /// Per client address, opened email-action links (each a backend check of its code) a minute, and at once.
        public var pageChecksPerMinute = 300
        public var pageChecksBurst = 100
        /// Proxies whose `X-Forwarded-For` names the real client (exact IP addresses).
        public var trustedProxies: [String] = []
        public init() {}
    }

    /// `shortLinks`: the Dynamic Links REST API.
    /// `console.*`: who may sign in to the console of a deployment.
    public struct Console: Sendable, Equatable {
        public struct User: Sendable, Equatable {
            public var name: String
            /// ``ScryptPasswordHash``'s written form. Secret.
            public var passwordHash: String
            public init(name: String, passwordHash: String) {
                self.name = name
                self.passwordHash = passwordHash
            }
        }

        public var users: [User] = []
        public var idleMinutes = 30
        public init() {}
    }

    public struct ShortLinks: Sendable, Equatable {
        /// Keys that may create short links and read link statistics; none means the API is closed. Secret.
        public var apiKeys: [String] = []
        public init() {}
    }

    /// Development when the server binds a loopback address and `publicBaseURL` is `http://` on a
    /// loopback host (or an operator forces it); anything else is a deployment.
    public var mode: ServingMode {
        server.forceDevelopmentMode || isLoopbackOnly ? .development : .deployment
    }

    /// Development without a relay (`mail.smtpURL`): every mail is made, stored and listed, and
    /// logged instead of sent (docs/mail.md).
    public var mailIsOnlyLogged: Bool { mode == .development && mail.relay == nil }

    /// Development mode was forced on a configuration that reaches beyond this machine.
    public var isDevelopmentForced: Bool { server.forceDevelopmentMode && !isLoopbackOnly }

    /// Bound to loopback and addressed as loopback over plain HTTP: nobody else can reach it.
    package var isLoopbackOnly: Bool {
        guard server.tls == nil, let address = WebAddress(publicBaseURL), address.scheme == "http", address.isLoopback else { return false }
        return ServingMode.isLoopbackBind(server.host)
    }

    /// The link domain's host name (no port).
    public var publicHost: String {
        WebAddress.hostName(ofAuthority: publicBaseURL.split(separator: "/").dropFirst().first ?? "")
    }

    /// Every host name links of this service are made on (the public one and the pivot one), lower-case.
    public var serviceHosts: [String] {
        [publicHost.lowercased()] + (pivotBaseURL.flatMap(WebAddress.init).map { [$0.host] } ?? [])
    }
}
