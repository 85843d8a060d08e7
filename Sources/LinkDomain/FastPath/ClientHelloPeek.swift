import LinkDomainCore
import NIOCore
import NIOSSL
import NIOTLS

/// While a tls-alpn-01 challenge is open, reads a TLS connection's first record before the TLS
/// handler does: a ClientHello offering only `acme-tls/1` for a challenged name gets that name's
/// challenge certificate and is closed after the handshake (RFC 8737 §3); every other connection
/// is set up as usual and given the same bytes. Bounded by one record and the handshake timeout.
final class ClientHelloPeek: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let responses: ChallengeResponses
    private let timeout: TimeAmount
    /// Installs the usual TLS and HTTP handlers after this one.
    private let proceed: (any Channel) throws -> Void
    private var buffered: ByteBuffer?
    private var deadline: Scheduled<Void>?

    init(responses: ChallengeResponses, timeout: TimeAmount, proceed: @escaping (any Channel) throws -> Void) {
        self.responses = responses
        self.timeout = timeout
        self.proceed = proceed
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if buffered == nil {
            buffered = incoming
        } else {
            buffered?.writeBuffer(&incoming)
        }
        guard let bytes = buffered else { return }
        let peeked = TLSClientHello.peek(Array(bytes.readableBytesView.prefix(TLSClientHello.largestRecord)))
        if peeked == .needMore, bytes.readableBytes < TLSClientHello.largestRecord { return }
        do {
            if case .hello(let hello) = peeked, let challenge = responses.context(for: hello) {
                let operations = context.pipeline.syncOperations
                try operations.addHandler(NIOSSLServerHandler(context: challenge))
                try operations.addHandler(HandshakeTimeoutHandler(timeout: timeout))
                try operations.addHandler(CloseAfterHandshake())
            } else {
                try proceed(context.channel)
            }
        } catch {
            context.close(promise: nil)
            return
        }
        buffered = nil
        context.fireChannelRead(wrapInboundOut(bytes))
        context.fireChannelReadComplete()
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

/// A tls-alpn-01 connection carries no HTTP: once the CA has seen the certificate, it ends.
final class CloseAfterHandshake: ChannelInboundHandler {
    typealias InboundIn = NIOAny

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event { context.close(promise: nil) }
        context.fireUserInboundEventTriggered(event)
    }
}
