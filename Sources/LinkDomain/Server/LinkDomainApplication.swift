import Crypto
import Foundation
import Hummingbird
import HummingbirdCore
import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore
import ServiceLifecycle

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
        ResponseFinisher(
            securityHeaders: SecurityHeaders(
                terminatesTLS: services.certificates != nil,
                trustedProxies: Set(services.configuration.limits.trustedProxies),
                imageOrigin: services.configuration.branding.logoURL.flatMap(SecurityHeaders.origin)),
            metrics: services.metrics)
    }

    public static func router(_ services: LinkDomainServices, extraReadinessChecks: [any ReadinessCheck] = [], logger: Logger)
        -> Router<Context>
    {
        let router = Router(context: Context.self, options: .autoGenerateHeadEndpoints)
        // Outside the error pages, so that every status, a thrown 404 or 413 included, is finished alike.
        router.add(middleware: ResponseFinishingMiddleware<Context>(finisher: finisher(services)))
        router.add(middleware: ErrorPageMiddleware(pages: ErrorPages(pages: services.immediate.writer.pages, renderer: services.renderer)))
        if let hosts = services.immediate.developmentHosts { router.add(middleware: DevelopmentHostMiddleware<Context>(hosts: hosts)) }
        // Who the client is, once: every budget and handler after this reads `context.clientAddress`.
        router.add(middleware: ClientAddressMiddleware<Context>(trustedProxies: Set(services.configuration.limits.trustedProxies)))
        router.add(
            middleware: AbuseLimitsMiddleware<Context>(
                limiter: RateLimiter(perMinute: services.configuration.limits.requestsPerMinute, burst: services.configuration.limits.burst)))
        let credentialFiles = services.credentialFiles
        router.addRoutes(AssociationController(files: services.files, credentials: credentialFiles).routes)
        router.addRoutes(AuthHelperController<Context>(relay: services.authHelper, files: credentialFiles).routes)
        router.addRoutes(
            HealthController(
                readinessChecks: [
                    BackendReadiness(backend: services.authBackend),
                    DatabaseReadiness(health: services.databaseHealth, clock: services.clock),
                ]
                    + (services.certificates.map {
                        [
                            CertificateReadiness(
                                certificates: $0, renewal: services.renewalStatus, names: services.configuration.server.acme?.names ?? [],
                                clock: services.clock)
                        ]
                    } ?? [])
                    + extraReadinessChecks
            ).routes)
        if let embedded = services.embeddedBackend {
            router.addRoutes(embedded.routes(context: Context.self))
        }
        router.addRoutes(
            ShortLinksController<Context>(
                configuration: services.configuration, store: services.linkStore,
                linkEvents: services.linkEvents, clock: services.clock,
                operations: services.shortLinkOperations
            ).routes)
        router.addRoutes(MetricsController<Context>(metrics: services.metrics, certificates: services.certificates, clock: services.clock).routes)
        router.addRoutes(
            AppAttributionController<Context>(
                configuration: services.configuration, store: services.linkStore,
                linkEvents: services.linkEvents, sealer: HandoffSealer(secret: services.formSecret),
                clock: services.clock
            ).routes)
        let configuration = services.configuration
        let emailActions = services.emailActionSender
        router.addRoutes(
            EmailActionController<Context>(
                sender: emailActions,
                unavailable: services.mailOutbox == nil
                    ? "this link domain sends no mail: set mail.smtpURL" : "the backend cannot make links: set backend.serviceAccountFile",
                pendingWork: services.pendingWork,
                apiKeys: Array(Set(configuration.backend.clientAPIKeys + [configuration.backend.apiKey]))
            ).routes)
        router.addRoutes(
            ConsoleController<Context>(
                configuration: configuration,
                access: ConsoleAccess(
                    configuration: configuration, signer: FormToken(secret: services.formSecret), signOuts: services.signOuts,
                    budgets: services.budgets, clock: services.clock),
                renderer: ConsoleRenderer(appName: configuration.appName), links: services.shortLinkOperations, admin: services.admin,
                mailQueue: services.mailQueueOperations, embedded: services.embeddedBackend, files: services.files,
                doctor: ConsoleDoctor(base: configuration.publicBaseURL),
                linkEvents: services.linkEvents, router: services.immediate.router, clock: services.clock, startedAt: services.clock.nowMilliseconds()
            ).routes)
        router.addRoutes(
            MailQueueController<Context>(
                operations: services.mailQueueOperations, adminKeys: configuration.backend.adminKeys,
                mode: configuration.mode
            ).routes)
        router.addRoutes(
            ActionPagesController<Context>(
                pages: services.immediate.writer.pages, renderer: services.renderer,
                backend: services.authBackend, linkStore: services.linkStore, linkEvents: services.linkEvents,
                formToken: FormToken(secret: services.formSecret), stylesheet: services.immediate.stylesheet, favicon: services.favicon,
                script: services.script, qrCodes: ShortLinkQRCodes(store: services.linkStore, publicBaseURL: configuration.publicBaseURL),
                customActionPath: configuration.actionPath,
                clock: services.clock,
                admitBackendCall: { _, context in services.pageChecks.take(context.clientAddress) },
                mailLink: pageLinkMailer(emailActions, configuration: configuration, pendingWork: services.pendingWork),
                servesDemoContinuePage: configuration.mode == .development
            ).routes)
        return router
    }

    /// The links the pages mail ("send me a new link", "send me a link to change my password"):
    /// within the recipient's and the client's mail budgets, after the answer (so that its timing
    /// cannot say whether the address has an account); nil when no mail can be sent.
    static func pageLinkMailer(
        _ sender: EmailActionSender?, configuration: LinkDomainConfiguration, pendingWork: PendingWork
    ) -> (@Sendable (PageLinkMail) -> Void)? {
        guard let sender else { return nil }
        let apiKey = configuration.backend.apiKey
        // A link an app asked for names the configured apps again, as the app's own request did.
        let iOSBundleID = configuration.apple.apps.first?.bundleID
        let androidPackageName = configuration.android.apps.first?.packageName
        return { mail in
            pendingWork.start {
                guard let address = MailAddress(mail.email), await sender.outbox.admit(address.value, client: mail.client) else { return }
                // A link an app asked for is handled in the app (and mailed as the app form), as the old one was.
                var settings = ActionCodeSettingsFields(continueURL: mail.continueURL)
                if mail.forApp {
                    settings.canHandleCodeInApp = true
                    settings.iOSBundleID = iOSBundleID
                    settings.androidPackageName = androidPackageName
                }
                let request = ActionLinkRequest(
                    requestType: mail.requestType, email: address.value, newEmail: nil, settings: settings,
                    tenantID: nil, languageCode: mail.language)
                _ = try? await sender.send(request, to: address, apiKey: apiKey, opensInApp: mail.forApp)
            }
        }
    }

    public static func build(
        _ services: LinkDomainServices,
        logger: Logger,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let configuration = services.configuration
        var background = services.backgroundServices
        if let address = configuration.authDomain.adminListen, let embedded = services.embeddedBackend {
            // Last, so that it stops first, with the public server.
            background.append(AdminListener.application(services, embedded: embedded, address: address, logger: logger))
        }
        if let httpPort = configuration.server.httpPort {
            background.append(
                PlainPortListener.application(configuration: configuration, port: httpPort, responses: services.challengeResponses, logger: logger))
        }
        var application = Application(
            router: router(services, logger: logger),
            server: server(services, logger: logger),
            configuration: .init(address: .hostname(configuration.server.host, port: configuration.server.port), serverName: nil),
            services: background,
            onServerRunning: { channel in
                services.listening.signal()
                await onServerRunning(channel.localAddress?.port ?? configuration.server.port)
            },
            logger: logger
        )
        for step in services.beforeServing { application.beforeServerStarts(perform: step) }
        return ListeningApplication(
            base: application, host: configuration.server.host, port: configuration.server.port,
            child: { responder in publicChannel(services, responder: responder, logger: logger) })
    }

    /// HTTP/1.1, or with TLS configured, HTTPS with HTTP/2 by ALPN and HTTP/1.1 as the fallback.
    /// Every connection gets the idle timeout and the event-loop answers of ``ImmediateResponder``:
    /// on HTTP/1.1 straight from its bytes (``RawRequestHandler``), on HTTP/2 from each stream's decoded head
    /// (``FastPathChannel/setUpHTTP2(_:needsATask:)``).
    static func publicChannel(_ services: LinkDomainServices, responder: @escaping HTTPChannelHandler.Responder, logger: Logger) -> PublicChannel {
        let timeout = services.configuration.server.idleTimeoutSeconds
        let finisher = finisher(services)
        let plain = FastPathChannel(
            responder: responder, immediate: services.immediate, finisher: finisher, idleTimeout: .seconds(Int64(timeout)),
            secure: services.certificates != nil, logger: logger)
        guard let certificates = services.certificates else { return PublicChannel(plain: plain, secure: nil) }
        return PublicChannel(
            plain: plain,
            secure: SecureFastPathChannel(
                certificates: certificates, http1: plain, handshakeTimeout: .seconds(Int64(timeout)),
                challenges: services.configuration.server.acme?.challenge == .tlsALPN ? services.challengeResponses : nil))
    }

    /// The same connections for Hummingbird's own server (its testing framework runs that one).
    static func server(_ services: LinkDomainServices, logger: Logger) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in publicChannel(services, responder: responder, logger: logger) }
    }
}
