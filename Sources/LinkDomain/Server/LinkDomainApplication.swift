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
    /// The time of day, for everything that reads it.
    let clock: any WallClock
    let renderer: PageRenderer
    /// The pages' icon and script, as served.
    let favicon: ImmediateResponse
    let script: ImmediateResponse
    /// What the event loop answers without the router: association files, the stylesheet, redirects.
    let immediate: ImmediateResponder
    let formSecret: [UInt8]
    /// The budget of code checks a client's page openings may ask for, shared by both ways in.
    let pageChecks: RateLimiter
    /// Short-link statistics, counted in memory and stored in batches.
    let linkEvents: LinkEventRecorder
    /// Where mails are stored for delivery; nil when none are sent.
    var mailOutbox: MailOutbox?
    /// Where the email action API gets its links.
    var actionLinks: (any ActionLinkSource)?
    /// What requests leave running after their answer; finished before the database closes.
    var pendingWork = PendingWork()
    /// Whether the database answers (`/readyz`, `/metrics`).
    var databaseHealth = DependencyHealth()

    /// What sends email actions' mails, when both mail and links are available.
    var emailActionSender: EmailActionSender? {
        guard let mailOutbox, let actionLinks else { return nil }
        return EmailActionSender(outbox: mailOutbox, links: actionLinks, encoder: ActionLinkEncoder(baseURL: configuration.publicBaseURL))
    }

    /// Opens the backend the configuration names and loads the page templates (and builds the
    /// association files, unless the caller already has).
    public static func make(configuration: LinkDomainConfiguration, files: AssociationFiles? = nil,
                            clock: any WallClock = SystemClock(), logger: Logger) async throws -> LinkDomainServices {
        let files = try files ?? AssociationFiles(configuration: configuration)
        let opened = try OpenedStore.open(configuration, logger: logger)
        let linkStore = CachedLinkStore(base: opened.store)
        let metrics = LinkMetrics()
        let mail = try MailSetup.make(configuration, queue: opened.mailQueue, clock: clock, metrics: metrics, logger: logger)
        let pendingWork = PendingWork()
        let backend = OpenedBackend.open(configuration, store: opened.store, clock: clock, outbox: mail.sendsMail ? mail.outbox : nil,
                                         pendingWork: pendingWork, logger: logger)
        let assets = try configuration.publicDirectory.map(PageAssets.load(directory:)) ?? PageAssets.builtIn()
        let renderer = PageRenderer(assets: assets, branding: PageBranding(configuration))
        // A brand colour for the buttons, in the light scheme (the dark one keeps its own, readable accent).
        let accent = configuration.branding.accentColor
        let stylesheet = assets.stylesheet + (accent == LinkDomainConfiguration.Branding().accentColor
            ? [] : Array("\n@media (prefers-color-scheme: light) { :root { --accent: \(accent); } }\n".utf8))
        let secret = configuration.formSecret.map { Array(SHA256.hash(data: Data($0.utf8))) } ?? FormToken.randomSecret()
        let certificates = try configuration.server.tls.map(CertificateStore.init)
        let linkEvents = LinkEventRecorder(store: linkStore, clock: clock, metrics: metrics, logger: logger)
        var pages = PageBuilder(router: LinkRouter(configuration: configuration), pivotBaseURL: configuration.pivotBaseURL,
                                publicBaseURL: configuration.publicBaseURL, appName: configuration.appName,
                                homeURL: configuration.branding.homeURL)
        let sealer = HandoffSealer(secret: secret)
        let handoffLifetime = Int64(configuration.handoffLifetimeSeconds)
        pages.handoffToken = { link in sealer.seal(link: link, now: clock.nowSeconds, lifetime: handoffLifetime) }
        var immediate = ImmediateResponder(configuration: configuration, files: files, stylesheet: stylesheet,
                                           writer: LinkAnswerWriter(pages: pages, renderer: renderer), shortLinks: linkStore, linkEvents: linkEvents)
        let authBackend = InstrumentedAuthBackend(backend: backend.authBackend, metrics: metrics)
        // Opening a link asks the backend about its code: its own, larger budget (many people share an office's address).
        let pageChecks = RateLimiter(perMinute: configuration.limits.pageChecksPerMinute, burst: configuration.limits.pageChecksBurst)
        if backend.embedded != nil, case .sqlite = configuration.storage {
            immediate.modeForms = ImmediateModeForms(writer: ModeFormWriter(pages: pages, renderer: renderer, formToken: FormToken(secret: secret), clock: clock),
                                                     backend: authBackend, pageChecks: pageChecks,
                                                     trustedProxies: Set(configuration.limits.trustedProxies), metrics: metrics)
        }
        var services = LinkDomainServices(configuration: configuration, files: files, embeddedBackend: backend.embedded,
                                          authBackend: authBackend,
                                          linkStore: linkStore, metrics: metrics, certificates: certificates, clock: clock, renderer: renderer,
                                          favicon: ImmediateResponse(status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "public, max-age=86400"],
                                                                     body: ByteBuffer(bytes: assets.favicon)),
                                          script: ImmediateResponse(status: .ok, headers: [.contentType: "text/javascript; charset=utf-8",
                                                                                           .cacheControl: "public, max-age=86400"],
                                                                    body: ByteBuffer(bytes: assets.script)),
                                          immediate: immediate, formSecret: secret, pageChecks: pageChecks, linkEvents: linkEvents,
                                          pendingWork: pendingWork)
        services.mailOutbox = mail.outbox
        services.actionLinks = backend.actionLinks
        if let service = opened.service { services.backgroundServices.append(service) }
        services.databaseHealth = opened.health
        services.backgroundServices.append(DatabaseProbe(store: opened.store, health: opened.health, interval: .seconds(configuration.healthCheckSeconds),
                                                         deadline: .seconds(configuration.storageTimeoutSeconds), clock: clock, metrics: metrics,
                                                         logger: logger))
        if let delivery = mail.delivery { services.backgroundServices.append(delivery) }
        // After the database's service, so that it stops first: its last flush still has the database.
        services.backgroundServices.append(services.linkEvents)
        services.backgroundServices.append(HangupHandler(certificates: certificates, logger: logger))
        services.backgroundServices.append(FreedMemoryTrimmer())
        // Last, so that it stops first: the mails it still writes have the database and the outbox.
        services.backgroundServices.append(pendingWork)
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

    /// What every answer gets on its way out: the security headers, the request metric, the log line.
    static func finisher(_ services: LinkDomainServices) -> ResponseFinisher {
        ResponseFinisher(securityHeaders: SecurityHeaders(terminatesTLS: services.certificates != nil,
                                                          trustedProxies: Set(services.configuration.limits.trustedProxies),
                                                          imageOrigin: services.configuration.branding.logoURL.flatMap(SecurityHeaders.origin)),
                         metrics: services.metrics)
    }

    public static func router(_ services: LinkDomainServices, extraReadinessChecks: [any ReadinessCheck] = [], logger: Logger)
        -> Router<Context>
    {
        let router = Router(context: Context.self, options: .autoGenerateHeadEndpoints)
        // Outside the error pages, so that every status, a thrown 404 or 413 included, is finished alike.
        router.add(middleware: ResponseFinishingMiddleware(finisher: finisher(services)))
        router.add(middleware: ErrorPageMiddleware(pages: ErrorPages(pages: services.immediate.writer.pages, renderer: services.renderer)))
        let abuseLimits = AbuseLimitsMiddleware(
            limiter: RateLimiter(perMinute: services.configuration.limits.requestsPerMinute, burst: services.configuration.limits.burst),
            trustedProxies: Set(services.configuration.limits.trustedProxies))
        router.add(middleware: abuseLimits)
        router.addRoutes(AssociationController(files: services.files).routes)
        router.addRoutes(HealthController(readinessChecks: [BackendReadiness(backend: services.authBackend),
                                                            DatabaseReadiness(health: services.databaseHealth, clock: services.clock)]
                                              + extraReadinessChecks).routes)
        if let embedded = services.embeddedBackend {
            router.addRoutes(embedded.routes(context: Context.self, clientAddress: { request, context in abuseLimits.clientAddress(request, context: context) }))
        }
        router.addRoutes(ShortLinksController<Context>(configuration: services.configuration, store: services.linkStore,
                                                       linkEvents: services.linkEvents, clock: services.clock).routes)
        router.addRoutes(MetricsController<Context>(metrics: services.metrics).routes)
        router.addRoutes(AppAttributionController<Context>(configuration: services.configuration, store: services.linkStore,
                                                           linkEvents: services.linkEvents, sealer: HandoffSealer(secret: services.formSecret),
                                                           clock: services.clock).routes)
        let configuration = services.configuration
        let emailActions = services.emailActionSender
        router.addRoutes(EmailActionController<Context>(
            sender: emailActions,
            unavailable: services.mailOutbox == nil ? "this link domain sends no mail: set mail.smtpURL" : "the backend cannot make links: set backend.serviceAccountFile",
            pendingWork: services.pendingWork,
            apiKeys: Array(Set(configuration.backend.clientAPIKeys + [configuration.backend.apiKey])),
            clientAddress: { request, context in abuseLimits.clientAddress(request, context: context) }
        ).routes)
        router.addRoutes(ActionPagesController<Context>(
            pages: services.immediate.writer.pages, renderer: services.renderer,
            backend: services.authBackend, linkStore: services.linkStore, linkEvents: services.linkEvents,
            formToken: FormToken(secret: services.formSecret), stylesheet: services.immediate.stylesheet, favicon: services.favicon,
            script: services.script, qrCodes: ShortLinkQRCodes(store: services.linkStore, publicBaseURL: configuration.publicBaseURL),
            customActionPath: configuration.actionPath,
            clock: services.clock,
            admitBackendCall: { request, context in services.pageChecks.take(abuseLimits.clientAddress(request, context: context)) },
            mailLink: pageLinkMailer(emailActions, apiKey: configuration.backend.apiKey, pendingWork: services.pendingWork),
            clientAddress: { request, context in abuseLimits.clientAddress(request, context: context) }
        ).routes)
        return router
    }

    /// The links the pages mail ("send me a new link", "send me a link to change my password"):
    /// within the recipient's and the client's mail budgets, after the answer (so that its timing
    /// cannot say whether the address has an account); nil when no mail can be sent.
    static func pageLinkMailer(_ sender: EmailActionSender?, apiKey: String, pendingWork: PendingWork) -> (@Sendable (PageLinkMail) -> Void)? {
        guard let sender else { return nil }
        return { mail in
            pendingWork.start {
                guard let address = MailAddress(mail.email), await sender.outbox.admit(address.value, client: mail.client) else { return }
                let settings: [String: JSONValue] = mail.continueURL.map { ["continueUrl": .string($0)] } ?? [:]
                let request = ActionLinkRequest(requestType: mail.requestType, email: address.value, newEmail: nil, settings: settings,
                                                tenantID: nil, languageCode: mail.language)
                _ = try? await sender.send(request, to: address, apiKey: apiKey, opensInApp: false)
            }
        }
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
            configuration: .init(address: .hostname(configuration.server.host, port: configuration.server.port), serverName: nil),
            services: services.backgroundServices,
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.server.port) },
            logger: logger
        )
        for step in services.beforeServing { application.beforeServerStarts(perform: step) }
        return application
    }

    /// HTTP/1.1, or with TLS configured, HTTPS with HTTP/2 by ALPN and HTTP/1.1 as the fallback.
    /// Every connection gets the idle timeout and the event-loop answers of ``ImmediateResponder``:
    /// on plain HTTP/1.1 straight from its bytes (``RawRequestHandler``), otherwise from the decoded head.
    static func server(_ services: LinkDomainServices, logger: Logger) -> HTTPServerBuilder {
        let timeout = services.configuration.server.idleTimeoutSeconds
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [
                ConnectionTimeoutHandler(timeout: .seconds(Int64(timeout))),
                ImmediateResponseHandler(responder: services.immediate, finisher: finisher(services), logger: logger),
            ]
        )
        guard let certificates = services.certificates else {
            let raw = RawResponder(immediate: services.immediate, finisher: finisher(services))
            return HTTPServerBuilder { responder in
                FastPathChannel(wrapped: HTTP1Channel(responder: responder, configuration: http1), rawResponder: raw, logger: logger)
            }
        }
        return HTTPServerBuilder { responder in
            HandshakeTimeoutChannel(
                wrapped: try HTTP2UpgradeChannel(tlsConfiguration: certificates.serverConfiguration(),
                                                 configuration: .init(idleTimeout: .seconds(timeout), streamConfiguration: http1),
                                                 responder: responder),
                timeout: .seconds(Int64(timeout)))
        }
    }
}
