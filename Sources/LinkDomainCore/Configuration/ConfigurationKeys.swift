/// Every configuration key, once, in the order docs/configuration.md lists them.
package enum ConfigurationKeys {
    /// The SQLite file when `storage` names none (relative to the configuration file).
    package static let defaultSQLitePath = "linkdomain.sqlite"

    package static let publicBaseURL = ConfigurationKey(
        "publicBaseURL", .url, default: .described("`http://HOST:PORT`"),
        expected: "an https:// origin such as \"https://links.example.com\" (http:// only for localhost), with no path",
        validate: ConfigurationValidators.publicBaseURL,
        "The origin mails point at: `https://` plus a host (and port), no path. `http://` only for `localhost`, `127.0.0.1`, `[::1]`.")
    package static let serverHost = ConfigurationKey(
        "server.host", .string, default: .string("127.0.0.1"),
        "Address to bind. `0.0.0.0` for every interface.")
    package static let serverPort = ConfigurationKey(
        "server.port", .integer(0...65535), default: .integer(8080), expected: "a TCP port from 0 to 65535",
        "Port to bind (0 picks a free one).")
    package static let forceDevelopmentMode = ConfigurationKey(
        "server.forceDevelopmentMode", .boolean, default: .boolean(false),
        "Keep development mode (the emulator's powers) where the configuration is otherwise a deployment, such as a CI container bound to `0.0.0.0`. Logged as a warning at every start. Never on a host the internet reaches."
    )
    package static let idleTimeoutSeconds = ConfigurationKey(
        "server.idleTimeoutSeconds", .integer(1...3600), default: .integer(30), expected: "1 to 3600 seconds",
        "How long a connection may sit idle, or take over a request's head or the next part of its body, or over a TLS handshake (1 to 3600).")
    package static let tlsCertificatePath = ConfigurationKey(
        "server.tls.certificatePath", .path, default: .none, expected: "a readable PEM file, the server's certificate first",
        "PEM certificate chain, the server's certificate first. With the key, `serve` speaks HTTPS (HTTP/2 and HTTP/1.1) and `publicBaseURL` defaults to `https://`. Reloaded on SIGHUP."
    )
    package static let tlsPrivateKeyPath = ConfigurationKey(
        "server.tls.privateKeyPath", .path, default: .none, expected: "a readable PEM private key that matches the certificate",
        "PEM private key of that certificate; a key that does not match it stops the start.")
    package static let appleTeamID = ConfigurationKey(
        "apple.apps[i].teamID", .string, default: .required, expected: "10 upper-case letters or digits, such as \"ABCDE12345\"",
        validate: ConfigurationValidators.teamID,
        "Apple Developer Team ID: 10 upper-case letters or digits.")
    package static let appleBundleID = ConfigurationKey(
        "apple.apps[i].bundleID", .string, default: .required, expected: "a bundle ID such as \"com.example.app\" (letters, digits, '-' and '.')",
        validate: ConfigurationValidators.bundleID,
        "Bundle ID, reverse-DNS (`com.example.app`).")
    package static let appleAppStoreID = ConfigurationKey(
        "apple.apps[i].appStoreID", .string, default: .none, expected: "the App Store ID's digits, such as \"1234567890\"",
        validate: ConfigurationValidators.appStoreID,
        "Numeric App Store ID, for \"get the app\" links.")
    package static let applePaths = ConfigurationKey(
        "apple.apps[i].paths", .stringList, default: .emptyList, expected: "path patterns such as \"/open/*\" or \"NOT /private/*\"",
        validate: ConfigurationValidators.pathPattern,
        "Extra path patterns the app opens, after the email-link paths; `NOT /path` excludes.")
    package static let appleWebcredentials = ConfigurationKey(
        "apple.apps[i].webcredentials", .boolean, default: .boolean(false),
        "List the app under `webcredentials` (passwords, passkeys).")
    package static let appleAppClip = ConfigurationKey(
        "apple.apps[i].appClip", .boolean, default: .boolean(false),
        "List `TEAMID.BUNDLE.Clip` under `appclips`.")
    package static let appleAssociationFile = ConfigurationKey(
        "apple.associationFile", .path, default: .none,
        "Serve this hand-written `apple-app-site-association` verbatim instead of generating one (relative to the configuration file). It is validated first: JSON, well-formed app IDs, every configured Apple app listed, `/__/auth/links` covered, at most 128 KB."
    )
    package static let androidPackageName = ConfigurationKey(
        "android.apps[i].packageName", .string, default: .required, expected: "an application ID such as \"com.example.app\"",
        validate: ConfigurationValidators.packageName,
        "Application ID (`com.example.app`).")
    package static let androidFingerprints = ConfigurationKey(
        "android.apps[i].fingerprints", .stringList, default: .required, expected: "SHA-256 fingerprints: 32 hex bytes, such as \"14:6D:E9:...:B5\"",
        validate: ConfigurationValidators.fingerprint,
        "SHA-256 signing-certificate fingerprints: 32 hex bytes, any case, with or without `:`; served upper-case with `:`. List the Play App Signing key, not only the upload key."
    )
    package static let authorizedDomains = ConfigurationKey(
        "authorizedDomains", .stringList, default: .emptyList, expected: "host names such as \"example.com\" (internationalised names in xn-- form)",
        validate: ConfigurationValidators.hostName,
        "Hosts that continue URLs may point at (exact host names; internationalised names in `xn--` form).")
    package static let backendKind = ConfigurationKey(
        "backend.kind", .string, default: .string("embedded"), expected: "one of: embedded, emulator, identityToolkit",
        "Where the pages check and spend codes: `embedded` (built in: accounts in this service's database, and its Identity Toolkit API served here), `emulator` (a Firebase Auth emulator at `backend.url`) or `identityToolkit` (Google: a real Firebase project). See [Backends](backends.md)."
    )
    package static let backendProjectID = ConfigurationKey(
        "backend.projectID", .string, default: .string("demo-linkdomain"),
        expected: "a project ID: 4 to 30 lower-case letters, digits or '-', starting with a letter", validate: ConfigurationValidators.projectID,
        "The Firebase project ID: ID tokens' audience, admin paths `/v1/projects/{projectID}/...`.")
    package static let backendAPIKey = ConfigurationKey(
        "backend.apiKey", .string, default: .string("demo-api-key"),
        "The API key mailed links carry (default: the first of `backend.apiKeys`). In a deployment the embedded backend accepts it on client calls; in development it accepts any non-empty key, as the emulator does. For `identityToolkit`, the project's Web API key."
    )
    package static let backendAPIKeys = ConfigurationKey(
        "backend.apiKeys", .stringList, default: .emptyList,
        "More API keys the embedded backend accepts on client calls in a deployment (one per app, say). A deployment of the embedded backend needs this or `backend.apiKey`."
    )
    package static let backendAdminKeys = ConfigurationKey(
        "backend.adminKeys", .stringList, default: .emptyList, secret: true, expected: "admin keys of at least 32 random characters (openssl rand -hex 32)",
        "Bearer tokens of admin calls (`Authorization: Bearer KEY`), 32+ characters each (`openssl rand -hex 32`); required in a deployment of the embedded backend, never printed. Keep them in the environment, not the file."
    )
    package static let emailEnumerationProtection = ConfigurationKey(
        "backend.emailEnumerationProtection", .boolean, default: .boolean(true),
        "Hide whether an address is registered: `createAuthUri` returns no sign-in methods, password sign-in fails with `INVALID_LOGIN_CREDENTIALS`, a reset for an unknown address succeeds silently (as for new Firebase projects)."
    )
    package static let codeLifetimeSeconds = ConfigurationKey(
        "backend.codeLifetimeSeconds", .integer(60...604_800), default: .integer(3600), expected: "60 to 604800 seconds (a week)",
        "How long reset, verification and sign-in codes stay valid (60 to 604800).")
    package static let backendURL = ConfigurationKey(
        "backend.url", .url, default: .described("per kind"),
        expected: "an http(s) URL such as \"http://127.0.0.1:9099\" (emulator) or \"https://identitytoolkit.googleapis.com\"",
        validate: ConfigurationValidators.backendURL,
        "For `emulator`: the emulator's origin (default `http://127.0.0.1:9099`). For `identityToolkit`: default `https://identitytoolkit.googleapis.com`.")
    package static let backendTimeoutSeconds = ConfigurationKey(
        "backend.timeoutSeconds", .integer(1...120), default: .integer(10), expected: "1 to 120 seconds",
        "How long a backend call may take (1 to 120).")
    package static let serviceAccountFile = ConfigurationKey(
        "backend.serviceAccountFile", .path, default: .described("`$GOOGLE_APPLICATION_CREDENTIALS`"),
        expected: "a service account's JSON key file (client_email, private_key), as the Cloud console downloads it",
        "A Google service account's JSON key (relative to the configuration file). The embedded backend accepts custom tokens signed with it in a deployment (development takes unsigned ones, as the emulator does)."
    )
    /// Where Google publishes the keys of Firebase ID tokens.
    package static let googleIDTokenKeysURL = "https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com"
    package static let backendIDTokenKeysURL = ConfigurationKey(
        "backend.idTokenKeysURL", .url, default: .string(googleIDTokenKeysURL), expected: "an http(s) URL of a JWK set",
        validate: ConfigurationValidators.backendURL,
        "For `identityToolkit`: where the keys of the project's ID tokens are published (a JWK set), for the email action API's `idToken` requests. Google's, unless you test against a stand-in."
    )
    package static let pivotBaseURL = ConfigurationKey(
        "pivotBaseURL", .url, default: .none, expected: "an https:// origin on a second host, such as \"https://open.example.com\", with no path",
        validate: ConfigurationValidators.publicBaseURL,
        "A second host that serves the same association file (point it at this service too). iOS opens a universal link only when the tap leads to another domain, so \"Open in the app\" points there. Without it, iPhone visitors get instructions instead of that button."
    )
    package static let actionPath = ConfigurationKey(
        "actionPath", .string, default: .none, expected: "a path such as \"/auth/action\": starts with /, letters, digits, '-', '_', '/' and '.' only",
        validate: ConfigurationValidators.actionPath,
        "A custom email action handler path (as set in the Firebase console), served like `/__/auth/action`.")
    package static let publicDirectory = ConfigurationKey(
        "publicDirectory", .path, default: .none,
        expected: "a directory holding templates/*.mustache, locales/*.json and static/styles.css, or no key (the built-in pages)",
        "Replace the built-in pages with a directory of the same shape as `Public/` (`templates/*.mustache`, `locales/*.json`, `static/styles.css`; relative to the configuration file). `check` and `serve` refuse one that lacks a template, holds one that does not parse, or a string table that is not JSON. Without it the pages compiled into the binary are served."
    )
    package static let formSecret = ConfigurationKey(
        "formSecret", .string, default: .described("random"), secret: true, expected: "at least 32 random characters",
        "Signs the pages' forms; random per process when unset. Set the same value (32+ characters) on every replica behind a load balancer.")
    package static let requestsPerMinute = ConfigurationKey(
        "limits.requestsPerMinute", .integer(1...1_000_000), default: .integer(120), expected: "1 to 1000000",
        "Per client address: POSTs (forms, Identity Toolkit API) and link-API calls allowed a minute; past it, 429 with `Retry-After`.")
    package static let burst = ConfigurationKey(
        "limits.burst", .integer(1...1_000_000), default: .integer(30), expected: "1 to 1000000",
        "How many of those may come at once.")
    package static let pageChecksPerMinute = ConfigurationKey(
        "limits.pageChecksPerMinute", .integer(1...1_000_000), default: .integer(300), expected: "1 to 1000000",
        "Per client address: opened email-action links (each asks the backend whether its code is good) allowed a minute; past it, a branded 429 page with `Retry-After`. Generous because an office or a carrier puts many people behind one address, and codes are too long to guess."
    )
    package static let pageChecksBurst = ConfigurationKey(
        "limits.pageChecksBurst", .integer(1...1_000_000), default: .integer(100), expected: "1 to 1000000",
        "How many of those may come at once.")
    package static let handoffLifetimeSeconds = ConfigurationKey(
        "handoff.lifetimeSeconds", .integer(60...604_800), default: .integer(3600), expected: "60 to 604800 seconds (a week)",
        "How long a link handed across an app's install (the Play referrer's or the pasteboard's hand-off token) can be claimed by the app, once.")
    package static let trustedProxies = ConfigurationKey(
        "limits.trustedProxies", .stringList, default: .emptyList,
        "IP addresses of your reverse proxies: behind them, the client is the nearest untrusted address in `X-Forwarded-For`, and `X-Forwarded-Proto: https` turns HSTS on. Without it, every request behind a proxy counts as the proxy's."
    )
    package static let consoleUserName = ConfigurationKey(
        "console.users[i].name", .string, default: .required, expected: "a name of letters, digits, '.', '_', '-' or '@' (1 to 64)",
        validate: { ConfigurationValidators.consoleUserName($0) },
        "A person who may sign in to the console of a deployment (`/__/console`; in development it is open).")
    package static let consoleUserPasswordHash = ConfigurationKey(
        "console.users[i].passwordHash", .string, default: .required, secret: true, expected: "a hash made by `linkdomain console hash-password`",
        validate: { ScryptPasswordHash($0) == nil ? nil : $0 },
        "Their password's scrypt hash, made by `linkdomain console hash-password` (which reads the password from standard input).")
    package static let consoleIdleMinutes = ConfigurationKey(
        "console.idleMinutes", .integer(1...1440), default: .integer(30), expected: "1 to 1440 minutes",
        "A console session ends after this long without use (and 12 hours after sign-in in any case).")
    package static let shortLinkAPIKeys = ConfigurationKey(
        "shortLinks.apiKeys", .stringList, default: .emptyList, secret: true, expected: "keys of at least 16 random characters",
        "Keys (16+ characters) that may create short links and read statistics (`?key=`). With none, the link API answers 403.")
    package static let sqlitePath = ConfigurationKey(
        "storage.sqlitePath", .path, default: .string(defaultSQLitePath),
        "The database (accounts, codes, short links, statistics), created on first run (relative to the configuration file).")
    package static let storageTimeoutSeconds = ConfigurationKey(
        "storage.timeoutSeconds", .integer(1...60), default: .integer(2), expected: "1 to 60 seconds",
        "How long one PostgreSQL call may take (connecting included) before the request that needs it answers 503 with `Retry-After`; also the health probe's deadline."
    )
    package static let healthCheckSeconds = ConfigurationKey(
        "health.checkIntervalSeconds", .integer(1...60), default: .integer(1), expected: "1 to 60 seconds",
        "How often the database is probed while the server serves anyone (a server quiet for 5 s with its database up probes nothing until its next visitor): `/readyz` turns not-ready within this and `storage.timeoutSeconds` of losing it, and ready as soon after its return; meanwhile PostgreSQL calls fail at once."
    )
    package static let postgresURL = ConfigurationKey(
        "storage.postgresURL", .url, default: .none, secret: true, expected: "a URL such as \"postgres://linkdomain:secret@127.0.0.1:5432/linkdomain\"",
        validate: ConfigurationValidators.postgresURL,
        "Keep all of that in PostgreSQL instead (`postgres://user:password@host:5432/database`; TLS is required except on loopback), so several replicas behind a load balancer share it. The schema is created and migrated at start, under a lock."
    )

    /// The configuration table of docs/configuration.md: a header and one row per key.
    package static var documentationTable: String {
        (["| key | environment variable | type, default | meaning |", "|---|---|---|---|"] + all.map(\.documentationRow)).joined(separator: "\n")
    }

    package static let all: [ConfigurationKey] = [
        publicBaseURL, serverHost, serverPort, forceDevelopmentMode, idleTimeoutSeconds, tlsCertificatePath, tlsPrivateKeyPath, httpPort,
        acmeDirectoryURL, acmeEmail, acmeNames, acmeTrustedCertificatesPath, acmeChallenge, acmeExternalAccountKeyID, acmeExternalAccountMACKey,
        appleTeamID, appleBundleID, appleAppStoreID, applePaths, appleWebcredentials, appleAppClip, appleAssociationFile,
        androidPackageName, androidFingerprints, androidWebcredentials, authorizedDomains, backendKind, backendProjectID, backendAPIKey, backendAPIKeys,
        backendAdminKeys, emailEnumerationProtection, codeLifetimeSeconds, backendURL, backendTimeoutSeconds, serviceAccountFile, backendIDTokenKeysURL,
        pivotBaseURL,
        actionPath, publicDirectory, formSecret, requestsPerMinute, burst, pageChecksPerMinute, pageChecksBurst, handoffLifetimeSeconds, trustedProxies,
        consoleUserName, consoleUserPasswordHash, consoleIdleMinutes, shortLinkAPIKeys, sqlitePath, storageTimeoutSeconds, healthCheckSeconds,
        postgresURL, mailSMTPURL, mailFrom, mailFromName, mailTrustedCertificatesPath, mailDKIMPrivateKeyPath, mailDKIMSelector,
        mailDKIMDomain, mailTemplatesDirectory, mailTimeoutSeconds, mailRetryForSeconds, mailRetryInitialSeconds, mailPerRecipientPerHour,
        mailPerClientPerHour, brandingAppName, brandingAccentColor, brandingLogoURL, brandingSupportURL, brandingPrivacyURL, brandingTermsURL, brandingHomeURL,
        brandingSupportEmail, pagesDefaultLanguage, authHandlerOrigin, webAppAppID, webAppMessagingSenderID, webAppStorageBucket,
        webAppMeasurementID, passkeysRelatedOrigins, passkeysEnrollURL, passkeysManageURL, changePasswordURL, adminListen,
    ]
}
