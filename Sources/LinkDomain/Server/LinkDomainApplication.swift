import Foundation
import Hummingbird
import Logging

/// Builds the HTTP application: routes, middleware and services, from a validated configuration.
public enum LinkDomainApplication {
    public typealias Context = BasicRequestContext

    /// The router alone, for in-process tests and for ``build(configuration:files:logger:onServerRunning:)``.
    public static func router(
        files: AssociationFiles, backend: EmbeddedBackend? = nil, readinessChecks: [any ReadinessCheck] = [], logger: Logger
    ) -> Router<Context> {
        let router = Router(context: Context.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: RequestLogMiddleware(logger: logger))
        router.add(middleware: PlainErrorPageMiddleware(logger: logger))
        router.add(middleware: SecurityHeadersMiddleware())
        AssociationController(files: files).addRoutes(to: router)
        HealthController(readinessChecks: readinessChecks).addRoutes(to: router)
        backend?.addRoutes(to: router, logger: logger)
        return router
    }

    public static func build(
        configuration: LinkDomainConfiguration,
        files: AssociationFiles,
        backend: EmbeddedBackend? = nil,
        logger: Logger,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Application(
            router: router(files: files, backend: backend, logger: logger),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger
        )
    }

    /// What `serve` prints at start: where it listens and what it serves.
    public static func summary(configuration: LinkDomainConfiguration, listeningPort: Int) -> String {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        var lines = [
            "LinkDomain listening on http://\(host):\(listeningPort)",
            "  public base URL:   \(configuration.publicBaseURL)",
            "  backend:           \(configuration.backend.rawValue)"
                + (configuration.backend == .embedded
                    ? " (project \(configuration.projectID), database \(configuration.sqlitePath)), Identity Toolkit API at /identitytoolkit.googleapis.com/v1"
                    : ""),
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
}
