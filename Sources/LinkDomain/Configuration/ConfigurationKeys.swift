/// Every configuration key, once, in the order docs/configuration.md lists them.
enum ConfigurationKeys {
    /// The SQLite file when `storage` names none (relative to the configuration file).
    static let defaultSQLitePath = "linkdomain.sqlite"

    static let publicBaseURL = ConfigurationKey(
        "publicBaseURL", .url, default: .described("`http://HOST:PORT`"), expected: "an https:// origin such as \"https://links.example.com\" (http:// only for localhost), with no path", validate: ConfigurationValidators.publicBaseURL,
        "The origin mails point at: `https://` plus a host (and port), no path. `http://` only for `localhost`, `127.0.0.1`, `[::1]`.")
    static let serverHost = ConfigurationKey(
        "server.host", .string, default: .string("127.0.0.1"),
        "Address to bind. `0.0.0.0` for every interface.")
    static let serverPort = ConfigurationKey(
        "server.port", .integer(0...65535), default: .integer(8080), expected: "a TCP port from 0 to 65535",
        "Port to bind (0 picks a free one).")
    static let forceDevelopmentMode = ConfigurationKey(
        "server.forceDevelopmentMode", .boolean, default: .boolean(false),
        "Keep development mode (the emulator's powers) where the configuration is otherwise a deployment, such as a CI container bound to `0.0.0.0`. Logged as a warning at every start. Never on a host the internet reaches.")
    static let idleTimeoutSeconds = ConfigurationKey(
        "server.idleTimeoutSeconds", .integer(1...3600), default: .integer(30), expected: "1 to 3600 seconds",
        "How long a connection may sit idle, or take over a request's head or the next part of its body, or over a TLS handshake (1 to 3600).")
    static let tlsCertificatePath = ConfigurationKey(
        "server.tls.certificatePath", .path, default: .none, expected: "a readable PEM file, the server's certificate first",
        "PEM certificate chain, the server's certificate first. With the key, `serve` speaks HTTPS (HTTP/2 and HTTP/1.1) and `publicBaseURL` defaults to `https://`. Reloaded on SIGHUP.")
    static let tlsPrivateKeyPath = ConfigurationKey(
        "server.tls.privateKeyPath", .path, default: .none, expected: "a readable PEM private key that matches the certificate",
        "PEM private key of that certificate; a key that does not match it stops the start.")
    static let appleTeamID = ConfigurationKey(
        "apple.apps[i].teamID", .string, default: .required, expected: "10 upper-case letters or digits, such as \"ABCDE12345\"", validate: ConfigurationValidators.teamID,
        "Apple Developer Team ID: 10 upper-case letters or digits.")
    static let appleBundleID = ConfigurationKey(
        "apple.apps[i].bundleID", .string, default: .required, expected: "a bundle ID such as \"com.example.app\" (letters, digits, '-' and '.')", validate: ConfigurationValidators.bundleID,
        "Bundle ID, reverse-DNS (`com.example.app`).")
    static let appleAppStoreID = ConfigurationKey(
        "apple.apps[i].appStoreID", .string, default: .none, expected: "the App Store ID's digits, such as \"1234567890\"", validate: ConfigurationValidators.appStoreID,
        "Numeric App Store ID, for \"get the app\" links.")
    static let applePaths = ConfigurationKey(
        "apple.apps[i].paths", .stringList, default: .emptyList, expected: "path patterns such as \"/open/*\" or \"NOT /private/*\"", validate: ConfigurationValidators.pathPattern,
        "Extra path patterns the app opens, after the email-link paths; `NOT /path` excludes.")
    static let appleWebcredentials = ConfigurationKey(
        "apple.apps[i].webcredentials", .boolean, default: .boolean(false),
        "List the app under `webcredentials` (passwords, passkeys).")
    static let appleAppClip = ConfigurationKey(
        "apple.apps[i].appClip", .boolean, default: .boolean(false),
        "List `TEAMID.BUNDLE.Clip` under `appclips`.")
    static let appleAssociationFile = ConfigurationKey(
        "apple.associationFile", .path, default: .none,
        "Serve this hand-written `apple-app-site-association` verbatim instead of generating one (relative to the configuration file). It is validated first: JSON, well-formed app IDs, every configured Apple app listed, `/__/auth/links` covered, at most 128 KB.")
    static let androidPackageName = ConfigurationKey(
        "android.apps[i].packageName", .string, default: .required, expected: "an application ID such as \"com.example.app\"", validate: ConfigurationValidators.packageName,
        "Application ID (`com.example.app`).")
    static let androidFingerprints = ConfigurationKey(
        "android.apps[i].fingerprints", .stringList, default: .required, expected: "SHA-256 fingerprints: 32 hex bytes, such as \"14:6D:E9:...:B5\"", validate: ConfigurationValidators.fingerprint,
        "SHA-256 signing-certificate fingerprints: 32 hex bytes, any case, with or without `:`; served upper-case with `:`. List the Play App Signing key, not only the upload key.")
    static let authorizedDomains = ConfigurationKey(
        "authorizedDomains", .stringList, default: .emptyList, expected: "host names such as \"example.com\" (internationalised names in xn-- form)", validate: ConfigurationValidators.hostName,
        "Hosts that continue URLs may point at (exact host names; internationalised names in `xn--` form).")
    static let backendKind = ConfigurationKey(
        "backend.kind", .string, default: .string("embedded"), expected: "one of: embedded, emulator, identityToolkit",
        "Where the pages check and spend codes: `embedded` (built in: accounts in this service's database, and its Identity Toolkit API served here), `emulator` (a Firebase Auth emulator at `backend.url`) or `identityToolkit` (Google: a real Firebase project). See [Backends](backends.md).")
    static let backendProjectID = ConfigurationKey(
        "backend.projectID", .string, default: .string("demo-linkdomain"), expected: "a project ID: 4 to 30 lower-case letters, digits or '-', starting with a letter", validate: ConfigurationValidators.projectID,
        "The Firebase project ID: ID tokens' audience, admin paths `/v1/projects/{projectID}/...`.")
    static let backendAPIKey = ConfigurationKey(
        "backend.apiKey", .string, default: .string("demo-api-key"),
        "The API key mailed links carry (default: the first of `backend.apiKeys`). In a deployment the embedded backend accepts it on client calls; in development it accepts any non-empty key, as the emulator does. For `identityToolkit`, the project's Web API key.")
    static let backendAPIKeys = ConfigurationKey(
        "backend.apiKeys", .stringList, default: .emptyList,
        "More API keys the embedded backend accepts on client calls in a deployment (one per app, say). A deployment of the embedded backend needs this or `backend.apiKey`.")
    static let backendAdminKeys = ConfigurationKey(
        "backend.adminKeys", .stringList, default: .emptyList, secret: true, expected: "admin keys of at least 32 random characters (openssl rand -hex 32)",
        "Bearer tokens of admin calls (`Authorization: Bearer KEY`), 32+ characters each (`openssl rand -hex 32`); required in a deployment of the embedded backend, never printed. Keep them in the environment, not the file.")
    static let emailEnumerationProtection = ConfigurationKey(
        "backend.emailEnumerationProtection", .boolean, default: .boolean(true),
        "Hide whether an address is registered: `createAuthUri` returns no sign-in methods, password sign-in fails with `INVALID_LOGIN_CREDENTIALS`, a reset for an unknown address succeeds silently (as for new Firebase projects).")
    static let codeLifetimeSeconds = ConfigurationKey(
        "backend.codeLifetimeSeconds", .integer(60...604_800), default: .integer(3600), expected: "60 to 604800 seconds (a week)",
        "How long reset, verification and sign-in codes stay valid (60 to 604800).")
    static let backendURL = ConfigurationKey(
        "backend.url", .url, default: .described("per kind"), expected: "an http(s) URL such as \"http://127.0.0.1:9099\" (emulator) or \"https://identitytoolkit.googleapis.com\"", validate: ConfigurationValidators.backendURL,
        "For `emulator`: the emulator's origin (default `http://127.0.0.1:9099`). For `identityToolkit`: default `https://identitytoolkit.googleapis.com`.")
    static let backendTimeoutSeconds = ConfigurationKey(
        "backend.timeoutSeconds", .integer(1...120), default: .integer(10), expected: "1 to 120 seconds",
        "How long a backend call may take (1 to 120).")
    static let serviceAccountFile = ConfigurationKey(
        "backend.serviceAccountFile", .path, default: .described("`$GOOGLE_APPLICATION_CREDENTIALS`"),
        expected: "a service account's JSON key file (client_email, private_key), as the Cloud console downloads it",
        "A Google service account's JSON key (relative to the configuration file). The embedded backend accepts custom tokens signed with it in a deployment (development takes unsigned ones, as the emulator does).")
    /// Where Google publishes the keys of Firebase ID tokens.
    static let googleIDTokenKeysURL = "https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com"
    static let backendIDTokenKeysURL = ConfigurationKey(
        "backend.idTokenKeysURL", .url, default: .string(googleIDTokenKeysURL), expected: "an http(s) URL of a JWK set", validate: ConfigurationValidators.backendURL,
        "For `identityToolkit`: where the keys of the project's ID tokens are published (a JWK set), for the email action API's `idToken` requests. Google's, unless you test against a stand-in.")
    static let pivotBaseURL = ConfigurationKey(
        "pivotBaseURL", .url, default: .none, expected: "an https:// origin on a second host, such as \"https://open.example.com\", with no path", validate: ConfigurationValidators.publicBaseURL,
        "A second host that serves the same association file (point it at this service too). iOS opens a universal link only when the tap leads to another domain, so \"Open in the app\" points there. Without it, iPhone visitors get instructions instead of that button.")
    static let actionPath = ConfigurationKey(
        "actionPath", .string, default: .none, expected: "a path such as \"/auth/action\": starts with /, letters, digits, '-', '_', '/' and '.' only", validate: ConfigurationValidators.actionPath,
        "A custom email action handler path (as set in the Firebase console), served like `/__/auth/action`.")
    static let publicDirectory = ConfigurationKey(
        "publicDirectory", .path, default: .none, expected: "a directory holding templates/*.mustache, locales/*.json and static/styles.css, or no key (the built-in pages)",
        "Replace the built-in pages with a directory of the same shape as `Public/` (`templates/*.mustache`, `locales/*.json`, `static/styles.css`; relative to the configuration file). `check` and `serve` refuse one that lacks a template, holds one that does not parse, or a string table that is not JSON. Without it the pages compiled into the binary are served.")
    static let formSecret = ConfigurationKey(
        "formSecret", .string, default: .described("random"), secret: true, expected: "at least 32 random characters",
        "Signs the pages' forms; random per process when unset. Set the same value (32+ characters) on every replica behind a load balancer.")
    static let requestsPerMinute = ConfigurationKey(
        "limits.requestsPerMinute", .integer(1...1_000_000), default: .integer(120), expected: "1 to 1000000",
        "Per client address: POSTs (forms, Identity Toolkit API) and link-API calls allowed a minute; past it, 429 with `Retry-After`.")
    static let burst = ConfigurationKey(
        "limits.burst", .integer(1...1_000_000), default: .integer(30), expected: "1 to 1000000",
        "How many of those may come at once.")
    static let pageChecksPerMinute = ConfigurationKey(
        "limits.pageChecksPerMinute", .integer(1...1_000_000), default: .integer(300), expected: "1 to 1000000",
        "Per client address: opened email-action links (each asks the backend whether its code is good) allowed a minute; past it, a branded 429 page with `Retry-After`. Generous because an office or a carrier puts many people behind one address, and codes are too long to guess.")
    static let pageChecksBurst = ConfigurationKey(
        "limits.pageChecksBurst", .integer(1...1_000_000), default: .integer(100), expected: "1 to 1000000",
        "How many of those may come at once.")
    static let handoffLifetimeSeconds = ConfigurationKey(
        "handoff.lifetimeSeconds", .integer(60...604_800), default: .integer(3600), expected: "60 to 604800 seconds (a week)",
        "How long a link handed across an app's install (the Play referrer's or the pasteboard's hand-off token) can be claimed by the app, once.")
    static let trustedProxies = ConfigurationKey(
        "limits.trustedProxies", .stringList, default: .emptyList,
        "IP addresses of your reverse proxies: behind them, the client is the nearest untrusted address in `X-Forwarded-For`, and `X-Forwarded-Proto: https` turns HSTS on. Without it, every request behind a proxy counts as the proxy's.")
    static let consoleUserName = ConfigurationKey(
        "console.users[i].name", .string, default: .required, expected: "a name of letters, digits, '.', '_', '-' or '@' (1 to 64)",
        validate: { ConfigurationValidators.consoleUserName($0) },
        "A person who may sign in to the console of a deployment (`/__/console`; in development it is open).")
    static let consoleUserPasswordHash = ConfigurationKey(
        "console.users[i].passwordHash", .string, default: .required, secret: true, expected: "a hash made by `linkdomain console hash-password`",
        validate: { ScryptPasswordHash($0) == nil ? nil : $0 },
        "Their password's scrypt hash, made by `linkdomain console hash-password` (which reads the password from standard input).")
    static let consoleIdleMinutes = ConfigurationKey(
        "console.idleMinutes", .integer(1...1440), default: .integer(30), expected: "1 to 1440 minutes",
        "A console session ends after this long without use (and 12 hours after sign-in in any case).")
    static let shortLinkAPIKeys = ConfigurationKey(
        "shortLinks.apiKeys", .stringList, default: .emptyList, secret: true, expected: "keys of at least 16 random characters",
        "Keys (16+ characters) that may create short links and read statistics (`?key=`). With none, the link API answers 403.")
    static let sqlitePath = ConfigurationKey(
        "storage.sqlitePath", .path, default: .string(defaultSQLitePath),
        "The database (accounts, codes, short links, statistics), created on first run (relative to the configuration file).")
    static let storageTimeoutSeconds = ConfigurationKey(
        "storage.timeoutSeconds", .integer(1...60), default: .integer(2), expected: "1 to 60 seconds",
        "How long one PostgreSQL call may take (connecting included) before the request that needs it answers 503 with `Retry-After`; also the health probe's deadline.")
    static let healthCheckSeconds = ConfigurationKey(
        "health.checkIntervalSeconds", .integer(1...60), default: .integer(1), expected: "1 to 60 seconds",
        "How often the database is probed: `/readyz` turns not-ready within this and `storage.timeoutSeconds` of losing it, and ready as soon after its return; meanwhile PostgreSQL calls fail at once.")
    static let postgresURL = ConfigurationKey(
        "storage.postgresURL", .url, default: .none, secret: true, expected: "a URL such as \"postgres://linkdomain:secret@127.0.0.1:5432/linkdomain\"", validate: ConfigurationValidators.postgresURL,
        "Keep all of that in PostgreSQL instead (`postgres://user:password@host:5432/database`; TLS is required except on loopback), so several replicas behind a load balancer share it. The schema is created and migrated at start, under a lock.")

    static let mailSMTPURL = ConfigurationKey(
        "mail.smtpURL", .url, default: .none, secret: true, expected: "a URL such as \"smtp://user:password@relay.example.com:587\" (STARTTLS) or \"smtps://...:465\"",
        validate: { SMTPRelay(url: $0) == nil ? nil : $0 },
        "The relay mails leave through: `smtp://user:password@host:587` (STARTTLS, required unless the relay is on this machine) or `smtps://...:465` (TLS from the start); user and password percent-encoded. Without it no mail is sent: in development the embedded backend's links are logged, as the emulator does.")
    static let mailFrom = ConfigurationKey(
        "mail.from", .string, default: .described("`noreply@` the public host"), expected: "an address such as \"noreply@example.com\"", validate: { MailAddress($0)?.value },
        "The sender's address (`From:`, the envelope, `Message-ID`'s domain). Use a domain whose SPF and DKIM records name your relay.")
    static let mailFromName = ConfigurationKey(
        "mail.fromName", .string, default: .described("`branding.appName`"),
        "The sender's name recipients see.")
    static let mailTrustedCertificatesPath = ConfigurationKey(
        "mail.trustedCertificatesPath", .path, default: .none, expected: "a readable PEM file of certificate authorities",
        "Certificate authorities trusted for the relay's TLS besides the system's (a private relay's own CA).")
    static let mailDKIMPrivateKeyPath = ConfigurationKey(
        "mail.dkim.privateKeyPath", .path, default: .none, expected: "a PEM private key: RSA of 1024+ bits (2048 recommended) or Ed25519",
        "Sign every mail with DKIM (relaxed/relaxed): an RSA (`rsa-sha256`) or Ed25519 (`ed25519-sha256`) PEM key. `linkdomain check` prints the DNS record to publish.")
    static let mailDKIMSelector = ConfigurationKey(
        "mail.dkim.selector", .string, default: .string("linkdomain"), expected: "a DNS label such as \"linkdomain\" or \"mail2026\"", validate: ConfigurationValidators.dnsLabel,
        "The record's name: the public key lives at `SELECTOR._domainkey.DOMAIN`.")
    static let mailDKIMDomain = ConfigurationKey(
        "mail.dkim.domain", .string, default: .described("`mail.from`'s domain"), expected: "a host name such as \"example.com\"", validate: ConfigurationValidators.hostName,
        "The signing domain (`d=`); it must be `mail.from`'s domain or a parent of it for DMARC.")
    static let mailTemplatesDirectory = ConfigurationKey(
        "mail.templatesDirectory", .path, default: .none, expected: "a directory with templates/*.mustache and/or locales/*.json shaped like Public/mail",
        "Override mail templates or strings by file: `templates/ACTION.html.mustache` and `.txt.mustache` (ACTION: `sign-in`, `reset-password`, `verify-email`, `change-email`, `recover-email`, `revert-second-factor`, `test`; `action.*` for all) and `locales/LANG.json` (merged over the built-in strings).")
    static let mailTimeoutSeconds = ConfigurationKey(
        "mail.timeoutSeconds", .integer(1...300), default: .integer(30), expected: "1 to 300 seconds",
        "How long the relay may take over connecting or any one reply.")
    static let mailRetryForSeconds = ConfigurationKey(
        "mail.retryForSeconds", .integer(60...604_800), default: .integer(3600), expected: "60 to 604800 seconds",
        "How long a mail the relay could not take (connection refused, timeout, 4xx) is retried, with exponential backoff and a last attempt at the window's end, before it is recorded as failed.")
    static let mailRetryInitialSeconds = ConfigurationKey(
        "mail.retryInitialSeconds", .integer(1...3600), default: .integer(10), expected: "1 to 3600 seconds",
        "The first retry's delay; each next one waits twice as long (at most 15 minutes).")
    static let mailPerRecipientPerHour = ConfigurationKey(
        "mail.perRecipientPerHour", .integer(1...10_000), default: .integer(5), expected: "1 to 10000",
        "Mails queued to one mailbox in an hour, whichever path mails (email action API, the embedded backend's `sendOobCode`, the pages' \"send me a link\", the address-change notice); `victim+tag@` counts as `victim@`. Past it, `TOO_MANY_ATTEMPTS_TRY_LATER`.")
    static let mailPerClientPerHour = ConfigurationKey(
        "mail.perClientPerHour", .integer(1...1_000_000), default: .integer(30), expected: "1 to 1000000",
        "Mails one client address may have queued in an hour, over every path that mails.")
    static let brandingAppName = ConfigurationKey(
        "branding.appName", .string, default: .described("the public host"),
        "The app's name, as mails (subjects, sender) and pages (every title, the header) say it.")
    static let brandingAccentColor = ConfigurationKey(
        "branding.accentColor", .string, default: .string("#0b57d0"), expected: "a colour such as \"#0b57d0\"", validate: ConfigurationValidators.hexColor,
        "The buttons' colour, `#rrggbb` (keep white text readable on it).")
    static let brandingLogoURL = ConfigurationKey(
        "branding.logoURL", .url, default: .none, expected: "an https:// URL of an image", validate: ConfigurationValidators.imageURL,
        "The app's logo (https), shown at the top of mails and pages, and the pages' icon.")
    static let brandingSupportURL = ConfigurationKey(
        "branding.supportURL", .url, default: .none, expected: "an https:// URL or mailto:address", validate: ConfigurationValidators.footerLink,
        "Where people get help: linked in every page's footer.")
    static let brandingPrivacyURL = ConfigurationKey(
        "branding.privacyURL", .url, default: .none, expected: "an https:// URL", validate: ConfigurationValidators.footerLink,
        "The privacy policy, linked in every page's footer.")
    static let brandingTermsURL = ConfigurationKey(
        "branding.termsURL", .url, default: .none, expected: "an https:// URL", validate: ConfigurationValidators.footerLink,
        "The terms of service, linked in every page's footer.")
    static let brandingHomeURL = ConfigurationKey(
        "branding.homeURL", .url, default: .none, expected: "an https:// URL", validate: { $0.hasPrefix("mailto:") ? nil : ConfigurationValidators.footerLink($0) },
        "The app's website: \"Back to {site}\" on pages that have nowhere else to lead (a finished action without a continue URL, an error).")
    static let brandingSupportEmail = ConfigurationKey(
        "branding.supportEmail", .string, default: .none, expected: "an address such as \"support@example.com\"", validate: { MailAddress($0)?.value },
        "Where mails tell people to write with questions.")

    /// The configuration table of docs/configuration.md: a header and one row per key.
    static var documentationTable: String {
        (["| key | environment variable | type, default | meaning |", "|---|---|---|---|"] + all.map(\.documentationRow)).joined(separator: "\n")
    }

    static let all: [ConfigurationKey] = [
        publicBaseURL, serverHost, serverPort, forceDevelopmentMode, idleTimeoutSeconds, tlsCertificatePath, tlsPrivateKeyPath,
        appleTeamID, appleBundleID, appleAppStoreID, applePaths, appleWebcredentials, appleAppClip, appleAssociationFile,
        androidPackageName, androidFingerprints, authorizedDomains, backendKind, backendProjectID, backendAPIKey, backendAPIKeys,
        backendAdminKeys, emailEnumerationProtection, codeLifetimeSeconds, backendURL, backendTimeoutSeconds, serviceAccountFile, backendIDTokenKeysURL, pivotBaseURL,
        actionPath, publicDirectory, formSecret, requestsPerMinute, burst, pageChecksPerMinute, pageChecksBurst, handoffLifetimeSeconds, trustedProxies, consoleUserName, consoleUserPasswordHash, consoleIdleMinutes, shortLinkAPIKeys, sqlitePath, storageTimeoutSeconds, healthCheckSeconds,
        postgresURL, mailSMTPURL, mailFrom, mailFromName, mailTrustedCertificatesPath, mailDKIMPrivateKeyPath, mailDKIMSelector,
        mailDKIMDomain, mailTemplatesDirectory, mailTimeoutSeconds, mailRetryForSeconds, mailRetryInitialSeconds, mailPerRecipientPerHour,
        mailPerClientPerHour, brandingAppName, brandingAccentColor, brandingLogoURL, brandingSupportURL, brandingPrivacyURL, brandingTermsURL, brandingHomeURL, brandingSupportEmail,
    ]
}
