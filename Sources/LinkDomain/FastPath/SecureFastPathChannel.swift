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
struct SecureFastPathChannel: Sendable {
    let certificates: CertificateStore
    let http1: FastPathChannel
    let http2: HTTP2Channel
    let handshakeTimeout: TimeAmount

    func setUp(_ channel: any Channel, needsATask: @escaping NeedsATask) throws {
        let operations = channel.pipeline.syncOperations
        try operations.addHandler(NIOSSLServerHandler(context: certificates.context))
        try operations.addHandler(HandshakeTimeoutHandler(timeout: handshakeTimeout))
        let negotiation = NIOTypedApplicationProtocolNegotiationHandler<Void> { [http1, http2] (result: ALPNResult, channel: any Channel) in
            switch result {
            case .negotiated("h2"):
                return http2.setup(channel: channel, logger: http1.logger).map { needsATask(.http2($0)) }
            case .negotiated("http/1.1"), .fallback:
                return channel.eventLoop.makeCompletedFuture { try http1.setUp(channel, needsATask: needsATask) }
            case .negotiated:
                // Only the protocols offered can be chosen; anything else ends the connection.
                return channel.close().flatMapThrowing { throw TLSError.unexpectedProtocol }
            }
        }
        try operations.addHandler(negotiation)
    }

    enum TLSError: Error {
        case unexpectedProtocol
    }
}

/// The public port's connections: plain HTTP/1.1, or HTTPS when a certificate is configured.
struct PublicChannel: ServerChildChannel {
    let plain: FastPathChannel
    let secure: SecureFastPathChannel?

    /// Sets `channel` up on its event loop; `needsATask` is called once the router must serve it.
    func setUp(_ channel: any Channel, needsATask: @escaping NeedsATask) throws {
        if let secure {
            try secure.setUp(channel, needsATask: needsATask)
        } else {
            try plain.setUp(channel, needsATask: needsATask)
        }
    }

    /// Serves the router's part of a connection, in its task.
    func handle(_ connection: RoutedConnection, logger: Logger) async {
        switch connection {
        case .http1(let value): await plain.handle(value, logger: logger)
        case .http2(let value): await secure?.http2.handle(value: value, logger: logger)
        }
    }

    // Hummingbird's own server (the one its testing framework runs) gives every connection a
    // task, which waits for the router's part, if the connection ever has one.

    struct Value: ServerChildChannelValue {
        let channel: any Channel
        let routed: EventLoopFuture<RoutedConnection?>
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let routed = channel.eventLoop.makePromise(of: RoutedConnection?.self)
            try setUp(channel) { routed.succeed($0) }
            // A promise completes once: after the router's part, this changes nothing.
            channel.closeFuture.whenComplete { _ in routed.succeed(nil) }
            return Value(channel: channel, routed: routed.futureResult)
        }
    }

    func handle(value: Value, logger: Logger) async {
        guard let connection = try? await value.routed.get() else { return }
        await handle(connection, logger: logger)
    }
}
