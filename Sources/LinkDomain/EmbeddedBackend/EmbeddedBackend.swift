import Hummingbird
import Logging

/// The Identity-Toolkit-compatible backend built into LinkDomain: accounts in a SQLite file, codes,
/// tokens, and the emulator's HTTP surface.
public struct EmbeddedBackend: Sendable {
    let service: AccountService

    public init(store: any AuthStore, configuration: LinkDomainConfiguration, clock: any BackendClock = SystemBackendClock(),
                logger: Logger) {
        var settings = EmbeddedBackendSettings(
            projectID: configuration.projectID, apiKey: configuration.apiKey, publicBaseURL: configuration.publicBaseURL,
            linkHost: configuration.publicHost,
            authorizedDomains: configuration.authorizedDomains,
            emailEnumerationProtection: configuration.emailEnumerationProtection,
            codeLifetimeSeconds: configuration.codeLifetimeSeconds)
        settings.passwordHashRounds = configuration.passwordHashRounds
        settings.mode = configuration.mode
        settings.clientAPIKeys = configuration.clientAPIKeys
        settings.adminKeys = configuration.adminKeys
        service = AccountService(settings: settings, store: store, tokens: TokenIssuer(store: store, projectID: settings.projectID),
                                 clock: clock, logger: logger)
    }

    func addRoutes<Context: RequestContext>(to router: Router<Context>, logger: Logger) {
        IdentityToolkitController<Context>(service: service, logger: logger).addRoutes(to: router)
    }
}
