import Hummingbird
import NIOCore

/// The request context: Hummingbird's, plus the peer's address for per-client limits.
public struct LinkDomainRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The client's IP address, as the rate limiter keys it ("unknown" when the transport has none).
    var clientKey: String { remoteAddress?.ipAddress ?? "unknown" }
}
