import HummingbirdCore
import HummingbirdHTTP2
import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore
import NIOSSL
import NIOTLS

/// HTTPS: TLS with the current certificate, then what ALPN chose: HTTP/1.1 served like plain
/// HTTP/1.1 (``FastPathChannel``: the byte reader first, the router's half only when needed), or
/// HTTP/2 (Hummingbird's, the immediate answers tried on each stream's decoded head).
///
/// A connection whose handshake has not finished within the idle timeout is closed: until it has,
/// no HTTP handler (and so no idle clock) is in the pipeline.
struct SecureFastPathChannel: DeferredChildChannel {
    /// What ALPN chose, with the connection set up for it.
    enum Negotiated: Sendable {
        case http1(FastPathChannel.Value)
        case http2(HTTP2Channel.Value)
    }

    struct Value: ServerChildChannelValue {
        let channel: any Channel
        let negotiated: EventLoopFuture<Negotiated>
    }

    let certificates: CertificateStore
    let http1: FastPathChannel
    let http2: HTTP2Channel
    let handshakeTimeout: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let operations = channel.pipeline.syncOperations
            try operations.addHandler(NIOSSLServerHandler(context: certificates.context))
            try operations.addHandler(HandshakeTimeoutHandler(timeout: handshakeTimeout))
            let negotiation = NIOTypedApplicationProtocolNegotiationHandler<Negotiated> { (result: ALPNResult, channel: any Channel) in
                switch result {
                case .negotiated("h2"):
                    return http2.setup(channel: channel, logger: logger).map { Negotiated.http2($0) }
                case .negotiated("http/1.1"), .fallback:
                    return http1.setup(channel: channel, logger: logger).map { Negotiated.http1($0) }
                case .negotiated:
                    // Only the protocols offered can be chosen; anything else ends the connection.
                    return channel.close().flatMapThrowing { throw TLSError.unexpectedProtocol }
                }
            }
            try operations.addHandler(negotiation)
            return Value(channel: channel, negotiated: negotiation.protocolNegotiationResult)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.negotiated.get() {
            case .http1(let connection): await http1.handle(value: connection, logger: logger)
            case .http2(let connection): await http2.handle(value: connection, logger: logger)
            }
        } catch {
            logger.debug("TLS connection ended before its protocol was chosen: \(error)")
        }
    }

    func whenItNeedsATask(_ value: Value, _ body: @escaping @Sendable () -> Void) {
        value.negotiated.whenSuccess { [http1] (negotiated: Negotiated) in
            switch negotiated {
            case .http1(let connection): http1.whenItNeedsATask(connection, body)
            case .http2: body()
            }
        }
    }

    enum TLSError: Error {
        case unexpectedProtocol
    }
}

/// The public port's connections: plain HTTP/1.1, or HTTPS when a certificate is configured.
struct PublicChannel: DeferredChildChannel {
    enum Value: ServerChildChannelValue {
        case plain(FastPathChannel.Value)
        case secure(SecureFastPathChannel.Value)

        var channel: any Channel {
            switch self {
            case .plain(let value): value.channel
            case .secure(let value): value.channel
            }
        }
    }

    let plain: FastPathChannel
    let secure: SecureFastPathChannel?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        guard let secure else { return plain.setup(channel: channel, logger: logger).map { .plain($0) } }
        return secure.setup(channel: channel, logger: logger).map { .secure($0) }
    }

    func handle(value: Value, logger: Logger) async {
        switch value {
        case .plain(let connection): await plain.handle(value: connection, logger: logger)
        case .secure(let connection): await secure?.handle(value: connection, logger: logger)
        }
    }

    func whenItNeedsATask(_ value: Value, _ body: @escaping @Sendable () -> Void) {
        switch value {
        case .plain(let connection): plain.whenItNeedsATask(connection, body)
        case .secure(let connection): secure?.whenItNeedsATask(connection, body)
        }
    }
}
