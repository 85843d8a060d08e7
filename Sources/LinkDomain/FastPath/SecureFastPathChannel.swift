import HummingbirdCore
import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore
import NIOSSL
import NIOTLS

/// HTTPS: TLS with the current certificate, then what ALPN chose: HTTP/1.1 served like plain
/// HTTP/1.1 (``FastPathChannel``: the byte reader first, the router's half only when needed), or
/// HTTP/2 (``FastPathChannel/setUpHTTP2(_:needsATask:)``: each stream answered on the event loop
/// when it can be, given a task only when its request needs the router).
///
/// A connection whose handshake has not finished within the idle timeout is closed: until it has,
/// no HTTP handler (and so no idle clock) is in the pipeline.
struct SecureFastPathChannel: Sendable {
    let certificates: CertificateStore
    let http1: FastPathChannel
    let handshakeTimeout: TimeAmount
    /// tls-alpn-01's challenges, when ACME checks names on this port.
    var challenges: ChallengeResponses?

    func setUp(_ channel: any Channel, needsATask: @escaping NeedsATask) throws {
        // The first record is read before TLS (ClientHelloPeek) only when ACME checks names here.
        if let challenges {
            try channel.pipeline.syncOperations.addHandler(
                ClientHelloPeek(responses: challenges, timeout: handshakeTimeout) { channel in try setUpTLS(channel, needsATask: needsATask) })
        } else {
            try setUpTLS(channel, needsATask: needsATask)
        }
    }

    private func setUpTLS(_ channel: any Channel, needsATask: @escaping NeedsATask) throws {
        let operations = channel.pipeline.syncOperations
        try operations.addHandler(NIOSSLServerHandler(context: certificates.context))
        try operations.addHandler(HandshakeTimeoutHandler(timeout: handshakeTimeout))
        let negotiation = NIOTypedApplicationProtocolNegotiationHandler<Void> { [http1] (result: ALPNResult, channel: any Channel) in
            switch result {
            case .negotiated("h2"):
                return channel.eventLoop.makeCompletedFuture { try http1.setUpHTTP2(channel, needsATask: needsATask) }
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
            // A plain connection's first handler allows it when something could be lost (``RawRequestHandler``).
            try channel.syncOptions?.setOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            try secure.setUp(channel, needsATask: needsATask)
        } else {
            try plain.setUp(channel, needsATask: needsATask)
        }
    }

    /// Serves the router's part of a connection (or of an HTTP/2 stream), in its task.
    func handle(_ routerPart: HTTP1Channel.Value, logger: Logger) async {
        await plain.handle(routerPart, logger: logger)
    }

    // Hummingbird's own server (the one its testing framework runs) gives every connection a
    // task, which waits for the router's part, if the connection ever has one.

    struct Value: ServerChildChannelValue {
        let channel: any Channel
        let routed: EventLoopFuture<HTTP1Channel.Value?>
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let routed = channel.eventLoop.makePromise(of: HTTP1Channel.Value?.self)
            try setUp(channel) { routed.succeed($0) }
            // A promise completes once: after the router's part, this changes nothing.
            channel.closeFuture.whenComplete { _ in routed.succeed(nil) }
            return Value(channel: channel, routed: routed.futureResult)
        }
    }

    func handle(value: Value, logger: Logger) async {
        guard let routerPart = try? await value.routed.get() else { return }
        await handle(routerPart, logger: logger)
    }
}
