import Crypto
import Foundation
import Hummingbird
import LinkDomainCore
import LinkDomainStorage
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
    /// This replica's short links in memory (the same as ``linkStore`` when it is one), which forgets changed links.
    var linkCache: CachedLinkStore? { linkStore as? CachedLinkStore }
    /// What the console and the listing APIs read and change.
    let admin: any LinkAdminStore & MailAdminStore
    /// The console's sign-outs.
    let signOuts: any ConsoleSignOutStore
    /// Budgets every replica shares, with PostgreSQL.
    let budgets: (any BudgetStore)?
    /// What runs beside the server (PostgreSQL's connection pool), and what must be done before it takes requests.
    public var backgroundServices: [any Service] = []
    /// Counters served at `/metrics`.
    public var metrics = LinkMetrics()
    public var beforeServing: [@Sendable () async throws -> Void] = []
    /// The TLS certificate, when the server terminates TLS itself.
    public let certificates: CertificateStore?
    /// Open ACME challenges, and how ordering goes, when ACME orders the certificate.
    var challengeResponses: ChallengeResponses?
    var renewalStatus: RenewalStatus?
    /// Set once the public port listens: ordering waits for it (tls-alpn-01 is answered there).
    let listening = ListeningSignal()
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
    /// Firebase's sign-in helper, relayed from `authHandler.origin`; nil when not configured.
    var authHelper: AuthHelperRelay?

    /// The passkey and password-manager files and `init.json`, made from the configuration.
    var credentialFiles: CredentialFiles { CredentialFiles(configuration: configuration) }

    /// What the link API and the console do to short links.
    var shortLinkOperations: ShortLinkOperations {
        ShortLinkOperations(store: linkStore, admin: admin, cache: linkCache, clock: clock)
    }

    /// What the mail API and the console do to the mail queue.
    var mailQueueOperations: MailQueueOperations {
        MailQueueOperations(store: admin, clock: clock, wakeSender: { [outbox = mailOutbox] in outbox?.stored() })
    }

    /// What sends email actions' mails, when both mail and links are available.
    var emailActionSender: EmailActionSender? {
        guard let mailOutbox, let actionLinks else { return nil }
        return EmailActionSender(outbox: mailOutbox, links: actionLinks, encoder: ActionLinkEncoder(baseURL: configuration.publicBaseURL))
    }

    /// Opens the backend the configuration names and loads the page templates (and builds the
    /// association files, unless the caller already has).
    public static func make(
        configuration: LinkDomainConfiguration, files: AssociationFiles? = nil,
        clock: any WallClock = SystemClock(), logger: Logger
    ) async throws -> LinkDomainServices {
        let files = try files ?? AssociationFiles(configuration: configuration)
        let opened = try OpenedStore.open(configuration, logger: logger)
        let linkStore = CachedLinkStore(base: opened.store)
        let metrics = LinkMetrics()
        let mail = try MailSetup.make(configuration, queue: opened.mailQueue, budgets: opened.budgets, clock: clock, metrics: metrics, logger: logger)
        let pendingWork = PendingWork()
        let backend = OpenedBackend.open(
            configuration, store: opened.store, clock: clock, outbox: mail.outbox,
            pendingWork: pendingWork, logger: logger)
        let assets = try configuration.publicDirectory.map(PageAssets.load(directory:)) ?? PageAssets.builtIn()
        let renderer = PageRenderer(assets: assets, branding: PageBranding(configuration))
        // A brand colour for buttons and links, in both schemes, shaded or tinted as far as contrast needs.
        let accent = configuration.branding.accentColor
        let stylesheet =
            assets.stylesheet
            + (accent == LinkDomainConfiguration.Branding().accentColor ? [] : Array(("\n" + (AccentColors(accent)?.stylesheet ?? "")).utf8))
        let secret = configuration.formSecret.map { Array(SHA256.hash(data: Data($0.utf8))) } ?? FormToken.randomSecret()
        let certificates =
            try configuration.server.acme.map { try CertificateStore(standInFor: $0.names) }
            ?? configuration.server.tls.map(CertificateStore.init)
        let linkEvents = LinkEventRecorder(store: linkStore, clock: clock, metrics: metrics, logger: logger)
        var pages = PageBuilder(
            router: LinkRouter(configuration: configuration), pivotBaseURL: configuration.pivotBaseURL,
            publicBaseURL: configuration.publicBaseURL, appName: configuration.appName,
            homeURL: configuration.branding.homeURL)
        let sealer = HandoffSealer(secret: secret)
        let handoffLifetime = Int64(configuration.handoffLifetimeSeconds)
        pages.handoffToken = { link, app in sealer.seal(link: link, app: app, now: clock.nowSeconds, lifetime: handoffLifetime) }
        var immediate = ImmediateResponder(
            configuration: configuration, files: files, stylesheet: stylesheet,
            writer: LinkAnswerWriter(pages: pages, renderer: renderer), shortLinks: linkStore, linkEvents: linkEvents)
        let authBackend = InstrumentedAuthBackend(backend: backend.authBackend, metrics: metrics)
        // Opening a link asks the backend about its code: its own, larger budget (many people share an office's address).
        let pageChecks = RateLimiter(perMinute: configuration.limits.pageChecksPerMinute, burst: configuration.limits.pageChecksBurst)
        if backend.embedded != nil, case .sqlite = configuration.storage {
            immediate.modeForms = ImmediateModeForms(
                writer: ModeFormWriter(pages: pages, renderer: renderer, formToken: FormToken(secret: secret), clock: clock),
                backend: authBackend, pageChecks: pageChecks,
                trustedProxies: Set(configuration.limits.trustedProxies), metrics: metrics)
        }
        var services = LinkDomainServices(
            configuration: configuration, files: files, embeddedBackend: backend.embedded,
            authBackend: authBackend,
            linkStore: linkStore, admin: opened.admin, signOuts: opened.signOuts, budgets: opened.budgets, metrics: metrics, certificates: certificates,
            clock: clock, renderer: renderer,
            favicon: ImmediateResponse(
                status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "public, max-age=86400"],
                body: ByteBuffer(bytes: assets.favicon)),
            script: ImmediateResponse(
                status: .ok,
                headers: [
                    .contentType: "text/javascript; charset=utf-8",
                    .cacheControl: "public, max-age=86400",
                ],
                body: ByteBuffer(bytes: assets.script)),
            immediate: immediate, formSecret: secret, pageChecks: pageChecks, linkEvents: linkEvents,
            pendingWork: pendingWork)
        services.mailOutbox = mail.outbox
        services.actionLinks = backend.actionLinks
        if let service = opened.service { services.backgroundServices.append(service) }
        services.databaseHealth = opened.health
        services.authHelper = configuration.authDomain.helperOrigin.map { origin in
            AuthHelperRelay(origin: origin, client: AuthHelperRelay.sharedClient, keptCopies: KeptCopies(), metrics: metrics)
        }
        services.backgroundServices.append(ShortLinkChangeWatcher(store: opened.admin, cache: linkStore, logger: logger))
        services.backgroundServices.append(
            DatabaseProbe(
                store: opened.store, health: opened.health, interval: .seconds(configuration.healthCheckSeconds),
                deadline: .seconds(configuration.storageTimeoutSeconds), clock: clock, metrics: metrics,
                logger: logger))
        if let delivery = mail.delivery { services.backgroundServices.append(delivery) }
        // After the database's service, so that it stops first: its last flush still has the database.
        services.backgroundServices.append(services.linkEvents)
        services.backgroundServices.append(HangupHandler(certificates: certificates, logger: logger))
        var renewer: CertificateRenewer?
        if let acme = configuration.server.acme, let certificates {
            let responses = ChallengeResponses(shared: opened.acme, clock: clock), status = RenewalStatus()
            services.challengeResponses = responses
            services.renewalStatus = status
            renewer = CertificateRenewer(
                settings: acme, store: opened.acme, certificates: certificates, responses: responses, status: status, metrics: metrics,
                clock: clock, listening: services.listening, logger: logger)
            renewer.map { services.backgroundServices.append($0) }
        }
        services.backgroundServices.append(FreedMemoryTrimmer())
        // Last, so that it stops first: the mails it still writes have the database and the outbox.
        services.backgroundServices.append(pendingWork)
        if let prepare = opened.prepare { services.beforeServing.append(prepare) }
        // A restart serves the certificate already issued from its first handshake, not the stand-in.
        if let renewer { services.beforeServing.append { await renewer.installStored() } }
        return services
    }
}
