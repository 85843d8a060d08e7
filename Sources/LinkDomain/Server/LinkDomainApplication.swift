import Crypto
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import ServiceLifecycle

/// Everything the HTTP application serves, built once at start from a validated configuration.
public struct LinkDomainServices: Sendable {
    public let configuration: LinkDomainConfiguration
    public let files: AssociationFiles
    /// Present when the configuration chooses the embedded backend: its HTTP API is served too.
    public let embeddedBackend: EmbeddedBackend?
    /// Where pages check and spend codes.
    public let authBackend: any AuthBackend
    /// Short links and their statistics.
    public let linkStore: any LinkStore
    /// What runs beside the server (PostgreSQL's connection pool), and what must be done before it takes requests.
    public var backgroundServices: [any Service] = []
    /// Counters served at `/metrics`.
    public var metrics = LinkMetrics()
    public var beforeServing: [@Sendable () async throws -> Void] = []
    /// The TLS certificate, when the server terminates TLS itself.
    public let certificates: CertificateStore?
    let renderer: PageRenderer
    /// What the event loop answers without the router: association files, the stylesheet, redirects.
    let immediate: ImmediateResponder
    let formSecret: [UInt8]
    /// Short-link statistics, counted in memory and stored in batches.
    let linkEvents: LinkEventRecorder

    /// Opens the backend the configuration names and loads the page templates (and builds the
    /// association files, unless the caller already has).
    public static func make(configuration: LinkDomainConfiguration, files: AssociationFiles? = nil,
                            clock: any BackendClock = SystemBackendClock(), logger: Logger) async throws -> LinkDomainServices {
        let files = try files ?? AssociationFiles(configuration: configuration)
        let opened = try OpenedStore.open(configuration, logger: logger)
        let store = opened.store
        let linkStore = CachedLinkStore(base: store)
        var embedded: EmbeddedBackend?
        let authBackend: any AuthBackend
        let timeout = TimeAmount.seconds(Int64(configuration.backendTimeoutSeconds))
        switch configuration.backend {
        case .embedded:
            let backend = EmbeddedBackend(store: store, configuration: configuration, clock: clock, logger: logger)
            embedded = backend
            authBackend = EmbeddedAuthBackend(service: backend.service)
        case .emulator:
            let base = configuration.backendURL ?? "http://127.0.0.1:9099"
            authBackend = IdentityToolkitClient(baseURL: base + "/identitytoolkit.googleapis.com/v1", defaultAPIKey: configuration.apiKey,
                                                timeout: timeout)
        case .identityToolkit:
            let base = configuration.backendURL ?? "https://identitytoolkit.googleapis.com"
            authBackend = IdentityToolkitClient(baseURL: base + "/v1", defaultAPIKey: configuration.apiKey, timeout: timeout)
        }
        let assets = try configuration.publicDirectory.map(PageAssets.load(directory:)) ?? PageAssets.builtIn()
        let renderer = try PageRenderer(assets: assets)
        let stylesheet = assets.stylesheet
        let secret = configuration.formSecret.map { Array(SHA256.hash(data: Data($0.utf8))) } ?? FormToken.randomSecret()
        let metrics = LinkMetrics()
        let certificates = try configuration.tls.map(CertificateStore.init)
        let linkEvents = LinkEventRecorder(store: linkStore, logger: logger)
        let immediate = ImmediateResponder(configuration: configuration, files: files, stylesheet: stylesheet, shortLinks: linkStore,
                                           linkEvents: linkEvents, metrics: metrics)
        var services = LinkDomainServices(configuration: configuration, files: files, embeddedBackend: embedded,
                                          authBackend: InstrumentedAuthBackend(backend: authBackend, metrics: metrics),
                                          linkStore: linkStore, metrics: metrics, certificates: certificates, renderer: renderer,
                                          immediate: immediate, formSecret: secret, linkEvents: linkEvents)
        if let service = opened.service { services.backgroundServices.append(service) }
        // After the database's service, so that it stops first: its last flush still has the database.
        services.backgroundServices.append(services.linkEvents)
        if let certificates { services.backgroundServices.append(CertificateReloader(store: certificates, logger: logger)) }
        if let prepare = opened.prepare { services.beforeServing.append(prepare) }
        return services
    }
}

/// The backend answers: `/readyz` fails while it does not.
struct BackendReadiness: ReadinessCheck {
    let backend: any AuthBackend
    var name: String { "backend" }
    func isReady() async -> Bool { await backend.isReachable() }
}

/// Builds the HTTP application: routes, middleware and services.
public enum LinkDomainApplication {
    public typealias Context = LinkDomainRequestContext

    /// The response headers every answer carries.
    static func securityHeaders(_ services: LinkDomainServices) -> SecurityHeaders {
        SecurityHeaders(terminatesTLS: services.certificates != nil, trustedProxies: Set(services.configuration.trustedProxies))
    }

    public static func router(_ services: LinkDomainServices, extraReadinessChecks: [any ReadinessCheck] = [], logger: Logger)
        -> Router<Context>
    {
        let router = Router(context: Context.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: RequestLogMiddleware(logger: logger))
        router.add(middleware: RequestMetricsMiddleware(metrics: services.metrics))
        // Outside the error pages, so that every status, a thrown 404 or 413 included, carries them.
        router.add(middleware: SecurityHeadersMiddleware(headers: securityHeaders(services)))
        router.add(middleware: PlainErrorPageMiddleware(logger: logger))
        let abuseLimits = AbuseLimitsMiddleware(
            limiter: RateLimiter(perMinute: services.configuration.requestsPerMinute, burst: services.configuration.burst),
            trustedProxies: Set(services.configuration.trustedProxies))
        router.add(middleware: abuseLimits)
        AssociationController(files: services.files).addRoutes(to: router)
        HealthController(readinessChecks: [BackendReadiness(backend: services.authBackend)] + extraReadinessChecks).addRoutes(to: router)
        services.embeddedBackend?.addRoutes(to: router, logger: logger)
        ShortLinksController<Context>(configuration: services.configuration, store: services.linkStore, linkEvents: services.linkEvents,
                                     logger: logger).addRoutes(to: router)
        MetricsController<Context>(metrics: services.metrics).addRoutes(to: router)
        ActionPagesController<Context>(
            configuration: services.configuration, backend: services.authBackend, linkStore: services.linkStore, linkEvents: services.linkEvents,
            metrics: services.metrics, renderer: services.renderer, formToken: FormToken(secret: services.formSecret), decider: services.immediate.decider,
            stylesheet: services.immediate.stylesheet, logger: logger,
            admitBackendCall: { request, context in await abuseLimits.admit(request, context: context) }
        ).addRoutes(to: router)
        return router
    }

    public static func build(
        _ services: LinkDomainServices,
        logger: Logger,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let configuration = services.configuration
        var application = Application(
            router: router(services, logger: logger),
            server: server(services, logger: logger),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            services: services.backgroundServices,
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger
        )
        for step in services.beforeServing { application.beforeServerStarts(perform: step) }
        return application
    }

    /// HTTP/1.1, or with TLS configured, HTTPS with HTTP/2 by ALPN and HTTP/1.1 as the fallback.
    /// Every connection gets the idle timeout and the event-loop answers of ``ImmediateResponder``.
    static func server(_ services: LinkDomainServices, logger: Logger) -> HTTPServerBuilder {
        let timeout = services.configuration.idleTimeoutSeconds
        let headers = securityHeaders(services)
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [
                ConnectionTimeoutHandler(timeout: .seconds(Int64(timeout))),
                ImmediateResponseHandler(responder: services.immediate, metrics: services.metrics, logger: logger, securityHeaders: headers),
            ]
        )
        guard let certificates = services.certificates else { return .http1(configuration: http1) }
        return HTTPServerBuilder { responder in
            HandshakeTimeoutChannel(
                wrapped: try HTTP2UpgradeChannel(tlsConfiguration: certificates.serverConfiguration(),
                                                 configuration: .init(idleTimeout: .seconds(timeout), streamConfiguration: http1),
                                                 responder: responder),
                timeout: .seconds(Int64(timeout)))
        }
    }

    /// What `serve` prints at start: where it listens and what it serves.
    public static func summary(configuration: LinkDomainConfiguration, listeningPort: Int) -> String {
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
