import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore

/// The auth backend the configuration names: the embedded one over the store, the Firebase Auth
/// emulator, or Google Identity Toolkit.
struct OpenedBackend: Sendable {
    /// Where pages check and spend codes.
    let authBackend: any AuthBackend
    /// Present for the embedded backend, whose Identity Toolkit API is served too.
    let embedded: EmbeddedBackend?
    /// Where the email action API gets links; nil when the backend cannot make them (Google
    /// without a service account).
    let actionLinks: (any ActionLinkSource)?

    static func open(
        _ configuration: LinkDomainConfiguration, store: any AuthStore, clock: any WallClock, outbox: MailOutbox?,
        pendingWork: PendingWork, logger: Logger
    ) -> OpenedBackend {
        let backend = configuration.backend
        let timeout = TimeAmount.seconds(Int64(backend.timeoutSeconds))
        let client = IdentityToolkitClient.sharedClient
        switch backend.kind {
        case .embedded:
            let embedded = EmbeddedBackend(
                store: store, configuration: configuration, clock: clock, outbox: outbox, pendingWork: pendingWork,
                logger: logger)
            return OpenedBackend(
                authBackend: EmbeddedAuthBackend(service: embedded.service), embedded: embedded,
                actionLinks: EmbeddedActionLinks(service: embedded.service))
        case .emulator(let base):
            let url = base + "/identitytoolkit.googleapis.com/v1"
            return OpenedBackend(
                authBackend: IdentityToolkitClient(baseURL: url, defaultAPIKey: backend.apiKey, timeout: timeout), embedded: nil,
                actionLinks: AdminActionLinks(
                    baseURL: url, projectID: backend.projectID, apiKey: backend.apiKey,
                    credentials: .fixed("owner"), idTokenKeys: nil, client: client, timeout: timeout))
        case .identityToolkit(let base):
            let url = base + "/v1"
            let links = backend.serviceAccount.map { account in
                AdminActionLinks(
                    baseURL: url, projectID: backend.projectID, apiKey: backend.apiKey,
                    credentials: .google(GoogleAccessTokens(account: account, client: client, clock: clock, timeout: timeout)),
                    idTokenKeys: IDTokenKeys(
                        url: backend.idTokenKeysURL, projectID: backend.projectID, client: client, clock: clock,
                        timeout: timeout),
                    client: client, timeout: timeout)
            }
            return OpenedBackend(
                authBackend: IdentityToolkitClient(baseURL: url, defaultAPIKey: backend.apiKey, timeout: timeout), embedded: nil,
                actionLinks: links)
        }
    }
}
