import Hummingbird
import Logging

/// The Identity-Toolkit-compatible backend built into LinkDomain: accounts in a SQLite file, codes,
/// tokens, and the emulator's HTTP surface.
public struct EmbeddedBackend: Sendable {
    let service: AccountService

    public init(store: any AuthStore, configuration: LinkDomainConfiguration, clock: any WallClock = SystemClock(),
                outbox: MailOutbox? = nil, pendingWork: PendingWork = PendingWork(), logger: Logger) {
        var settings = EmbeddedBackendSettings(
            projectID: configuration.backend.projectID, apiKey: configuration.backend.apiKey, publicBaseURL: configuration.publicBaseURL,
            linkHost: configuration.publicHost,
            authorizedDomains: configuration.authorizedDomains,
            emailEnumerationProtection: configuration.backend.emailEnumerationProtection,
            codeLifetimeSeconds: configuration.backend.codeLifetimeSeconds)
        if let rounds = configuration.passwordHashRounds { settings.passwordHashRounds = rounds }
        settings.mode = configuration.mode
        settings.clientAPIKeys = configuration.backend.clientAPIKeys
        settings.adminKeys = configuration.backend.adminKeys
        settings.serviceAccount = configuration.backend.serviceAccount
        service = AccountService(settings: settings, store: store, tokens: TokenIssuer(store: store, projectID: settings.projectID),
                                 clock: clock, logger: logger, outbox: outbox, pendingWork: pendingWork)
    }

    /// The Identity Toolkit, Secure Token and emulator endpoints.
    ///
    /// - Parameter clientAddress: the caller's address as the abuse limits see it.
    func routes<Context: RequestContext>(context: Context.Type, clientAddress: @escaping @Sendable (Request, Context) -> String = { _, _ in "" })
        -> RouteCollection<Context>
    {
        let routes = IdentityToolkitController<Context>(service: service, clientAddress: clientAddress).routes
        // The public keys of its ID tokens, where Google publishes Firebase's, for whoever verifies them.
        routes.get(RouterPath(RoutePaths.idTokenKeys)) { [service] _, _ in
            var response = Response.json(try await service.tokens.publishedKeys())
            response.headers[.cacheControl] = "public, max-age=3600"
            return response
        }
        // And those of its session cookies, where Identity Toolkit publishes them.
        routes.get(RouterPath(RoutePaths.sessionCookieKeys)) { [service] _, _ in
            var response = Response.json(try await service.tokens.sessionCookiePublicKeys())
            response.headers[.cacheControl] = "public, max-age=3600"
            return response
        }
        return routes
    }
}
