import LinkDomainCore
import LinkDomainStorage

/// What `serve` prints at start: where it listens, the mode and what it serves. Secrets (the
/// PostgreSQL URL, keys, the form secret) are never part of it.
public enum StartupSummary {
    public static func text(configuration: LinkDomainConfiguration, listeningPort: Int) -> String {
        let server = configuration.server
        let host = server.host.contains(":") ? "[\(server.host)]" : server.host
        let listening = !server.terminatesTLS ? "http://\(host):\(listeningPort)" : "https://\(host):\(listeningPort) (HTTP/2 and HTTP/1.1)"
        var lines = [
            "LinkDomain listening on " + listening,
            "  public base URL:   \(configuration.publicBaseURL)",
            "  certificate:       " + certificateSummary(server),
            "  mode:              " + modeSummary(configuration),
            "  storage:           " + storageSummary(configuration.storage),
            "  backend:           " + backendSummary(configuration.backend),
            "  pages:             " + (configuration.publicDirectory.map { "from \($0)" } ?? "built in"),
            "  mail:              " + mailSummary(configuration),
            "  email links:       "
                + RoutePaths.actionLinkPaths(customActionPath: configuration.actionPath)
                .filter { $0 != RoutePaths.emulatorAction }.joined(separator: ", "),
            "  \(RoutePaths.appleAssociation)  "
                + (configuration.apple.associationFile.map { "(verbatim from \($0))" } ?? "\(configuration.apple.apps.count) Apple app(s)"),
        ]
        lines += configuration.apple.apps.map { "      \($0.appID)" }
        lines.append("  \(RoutePaths.androidAssociation)             \(configuration.android.apps.count) Android app(s)")
        lines += configuration.android.apps.map { "      \($0.packageName)" }
        let domains = configuration.authorizedDomains
        lines.append("  authorized domains: " + (domains.isEmpty ? "(none)" : domains.joined(separator: ", ")))
        let domain = configuration.authDomain
        lines.append("  sign-in helper:    " + (domain.helperOrigin.map { "/__/auth/*, /__/firebase/* from \($0)" } ?? "off (authHandler.origin)"))
        if let admin = domain.adminListen {
            lines.append("  admin listener:    \(admin) (Authorization: Bearer owner, for firebase-admin and the Firebase CLI on this machine)")
        }
        lines.append("  \(RoutePaths.health), \(RoutePaths.readiness)")
        return lines.joined(separator: "\n")
    }

    /// Where the TLS certificate comes from, and the plain port if any.
    static func certificateSummary(_ server: LinkDomainConfiguration.Server) -> String {
        let plain = server.httpPort.map { "; plain HTTP on port \($0) redirects to https://" } ?? ""
        if let acme = server.acme {
            return "ordered from \(acme.directoryURL) for \(acme.names.joined(separator: ", ")) by \(acme.challenge.rawValue), renewed by itself" + plain
        }
        if let files = server.tls { return "\(files.certificatePath) (reloaded on SIGHUP)" + plain }
        return "none (plain HTTP)"
    }

    /// The relay without its password, the sender, and whether mails are signed.
    static func mailSummary(_ configuration: LinkDomainConfiguration) -> String {
        guard let relay = configuration.mail.relay else {
            return configuration.mode == .development ? "no relay: mails are logged (mail.smtpURL)" : "off: no relay (mail.smtpURL)"
        }
        let sender = configuration.mailSender?.address.value ?? "?"
        return "from \(sender) through \(relay.redacted)" + (configuration.mail.dkim == nil ? "" : ", DKIM-signed")
            + "; API at \(RoutePaths.sendEmailAction)"
    }

    static func storageSummary(_ storage: LinkDomainConfiguration.Storage) -> String {
        switch storage {
        case .sqlite(let path): "SQLite, \(path)"
        // The URL holds the password.
        case .postgres: "PostgreSQL"
        }
    }

    static func backendSummary(_ backend: LinkDomainConfiguration.Backend) -> String {
        switch backend.kind {
        case .embedded: "embedded (project \(backend.projectID)), Identity Toolkit API at /identitytoolkit.googleapis.com/v1"
        case .emulator(let url), .identityToolkit(let url): "\(backend.kind.name) at \(url)"
        }
    }

    /// What the mode allows, said where a developer or an operator reads it first.
    static func modeSummary(_ configuration: LinkDomainConfiguration) -> String {
        let backend = configuration.backend
        let embedded = backend.kind == .embedded
        switch configuration.mode {
        case .development where configuration.isDevelopmentForced:
            return "DEVELOPMENT, FORCED by server.forceDevelopmentMode on a host others can reach: anyone who reaches it "
                + "can list every code (/emulator/v1/.../oobCodes) and act as admin with \"Bearer owner\""
        case .development:
            return "development (loopback only)"
                + (embedded
                    ? ": the Firebase Auth emulator's contract (any API key, Authorization: Bearer owner, codes at /emulator/v1/projects/\(backend.projectID)/oobCodes, links logged)"
                    : "")
        case .deployment:
            return "deployment"
                + (embedded
                    ? ": configured API keys (\(backend.clientAPIKeys.count)) and admin keys (\(backend.adminKeys.count)) only, no code listing, no addresses or codes in logs"
                    : ": no addresses or codes in logs")
        }
    }
}
