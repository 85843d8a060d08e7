import Hummingbird
import LinkDomainCore
import NIOCore

/// The request context: Hummingbird's, plus what middleware learns once for the handlers after
/// it: the client (``ClientAddressMiddleware``) and, on the console's routes, who is signed in
/// (``ConsoleAccessMiddleware``).
public struct LinkDomainRequestContext: ConsoleRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    /// The client behind a trusted proxy, as ``ClientAddressMiddleware`` found it; nil for a direct peer.
    private var forwardedClient: String?
    var consoleVisit: ConsoleVisit?

    /// Read only by what counts per client (a POST, the link API, a page's code check): most
    /// requests never format their peer's address.
    public var clientAddress: String {
        get { forwardedClient ?? Self.peerKey(remoteAddress) }
        set { forwardedClient = newValue }
    }

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
