import Hummingbird
import LinkDomainCore
import LinkDomainStorage
import Logging

/// The Identity-Toolkit-compatible backend built into LinkDomain: accounts in a SQLite file, codes,
/// tokens, and the emulator's HTTP surface.
public struct EmbeddedBackend: Sendable {
    let service: AccountService

    public init(
        store: any AuthStore, configuration: LinkDomainConfiguration, clock: any WallClock = SystemClock(),
        outbox: MailOutbox? = nil, pendingWork: PendingWork = PendingWork(), logger: Logger
    ) {
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
        settings.defaultLanguage = configuration.defaultLanguage
        settings.serviceAccount = configuration.backend.serviceAccount
        service = AccountService(
            settings: settings, store: store, tokens: TokenIssuer(store: store, projectID: settings.projectID),
            clock: clock, logger: logger, outbox: outbox, pendingWork: pendingWork)
    }

    /// The Identity Toolkit, Secure Token and emulator endpoints; each call's client is the one
    /// ``ClientAddressMiddleware`` put in the context.
    /// - Parameter ownerIsAdmin: the admin listener's routes, where `Bearer owner` is an admin in any mode.
    func routes<Context: ClientAddressRequestContext>(context: Context.Type, ownerIsAdmin: Bool = false)
        -> RouteCollection<Context>
    {
        let routes = IdentityToolkitController<Context>(service: service, ownerIsAdmin: ownerIsAdmin).routes
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
