import Logging
import NIOCore

/// The auth backend the configuration names: the embedded one over the store, the Firebase Auth
/// emulator, or Google Identity Toolkit.
struct OpenedBackend: Sendable {
    /// Where pages check and spend codes.
    let authBackend: any AuthBackend
    /// Present for the embedded backend, whose Identity Toolkit API is served too.
    let embedded: EmbeddedBackend?

    static func open(_ configuration: LinkDomainConfiguration, store: any AuthStore, clock: any WallClock, logger: Logger) -> OpenedBackend {
        let timeout = TimeAmount.seconds(Int64(configuration.backend.timeoutSeconds))
        switch configuration.backend.kind {
        case .embedded:
            let backend = EmbeddedBackend(store: store, configuration: configuration, clock: clock, logger: logger)
            return OpenedBackend(authBackend: EmbeddedAuthBackend(service: backend.service), embedded: backend)
        case .emulator(let base):
            return OpenedBackend(authBackend: IdentityToolkitClient(baseURL: base + "/identitytoolkit.googleapis.com/v1",
                                                                    defaultAPIKey: configuration.backend.apiKey, timeout: timeout), embedded: nil)
        case .identityToolkit(let base):
            return OpenedBackend(authBackend: IdentityToolkitClient(baseURL: base + "/v1", defaultAPIKey: configuration.backend.apiKey, timeout: timeout),
                                 embedded: nil)
        }
    }
}
