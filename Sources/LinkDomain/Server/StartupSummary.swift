/// What `serve` prints at start: where it listens, the mode and what it serves.
public enum StartupSummary {
    public static func text(configuration: LinkDomainConfiguration, listeningPort: Int) -> String {
    let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
    var lines = [
        "LinkDomain listening on " + (configuration.tls == nil ? "http://\(host):\(listeningPort)" : "https://\(host):\(listeningPort) (HTTP/2 and HTTP/1.1)"),
        "  public base URL:   \(configuration.publicBaseURL)",
        "  mode:              " + modeSummary(configuration),
        "  storage:           " + (configuration.postgresURL.map { _ in "PostgreSQL" } ?? "SQLite, \(configuration.sqlitePath)"),
        "  backend:           \(configuration.backend.rawValue)"
            + (configuration.backend == .embedded
                ? " (project \(configuration.projectID)), Identity Toolkit API at /identitytoolkit.googleapis.com/v1"
                : " at \(configuration.backendURL ?? "its default URL")"),
        "  pages:             " + (configuration.publicDirectory.map { "from \($0)" } ?? "built in"),
        "  email links:       /__/auth/links, /__/auth/action" + (configuration.actionPath.map { ", \($0)" } ?? ""),
        "  /.well-known/apple-app-site-association  "
            + (configuration.appleAssociationFile.map { "(verbatim from \($0))" }
                ?? "\(configuration.appleApps.count) Apple app(s)"),
    ]
    lines += configuration.appleApps.map { "      \($0.appID)" }
    lines.append("  /.well-known/assetlinks.json             \(configuration.androidApps.count) Android app(s)")
    lines += configuration.androidApps.map { "      \($0.packageName)" }
    lines.append("  authorized domains: " + (configuration.authorizedDomains.isEmpty ? "(none)" : configuration.authorizedDomains.joined(separator: ", ")))
    lines.append("  /healthz, /readyz")
    return lines.joined(separator: "\n")
}

/// What the mode allows, said where a developer or an operator reads it first.
static func modeSummary(_ configuration: LinkDomainConfiguration) -> String {
    let embedded = configuration.backend == .embedded
    switch configuration.mode {
    case .development where configuration.isDevelopmentForced:
        return "DEVELOPMENT, FORCED by server.forceDevelopmentMode on a host others can reach: anyone who reaches it "
            + "can list every code (/emulator/v1/.../oobCodes) and act as admin with \"Bearer owner\""
    case .development:
        return "development (loopback only)" + (embedded
            ? ": the Firebase Auth emulator's contract (any API key, Authorization: Bearer owner, codes at /emulator/v1/projects/\(configuration.projectID)/oobCodes, links logged)"
            : "")
    case .deployment:
        return "deployment" + (embedded
            ? ": configured API keys (\(configuration.clientAPIKeys.count)) and admin keys (\(configuration.adminKeys.count)) only, no code listing, no addresses or codes in logs"
            : ": no addresses or codes in logs")
    }
}
}
