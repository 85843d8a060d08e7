import LinkDomainCore
import NIOCore
import NIOSSL
import NIOTLS

/// When ACME checks names by tls-alpn-01, reads a TLS connection's first record before the TLS
/// handler does: a ClientHello offering only `acme-tls/1` for a challenged name gets that name's
/// challenge certificate (this replica's, or one another replica published in the store) and is
/// closed after the handshake (RFC 8737 §3); such a hello for a name with no open challenge is
/// closed. Every other connection is set up as usual and given the same bytes. Bounded by one
/// record and the handshake timeout; browsers never offer `acme-tls/1`, so they never wait on the store.
final class ClientHelloPeek: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let responses: ChallengeResponses
    private let timeout: TimeAmount
    /// Installs the usual TLS and HTTP handlers after this one.
    private let proceed: (any Channel) throws -> Void
    private var buffered: ByteBuffer?
    private var deadline: Scheduled<Void>?
    /// Set while the store is asked for another replica's challenge: bytes are kept, nothing decided.
    private var waitingForStore = false

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
        // Nothing is decided from more than a record; a client sending on while the store is asked is cut off.
        if let held = buffered?.readableBytes, held > 2 * TLSClientHello.largestRecord {
            context.close(promise: nil)
            return
        }
        guard !waitingForStore, let bytes = buffered else { return }
        let peeked = TLSClientHello.peek(Array(bytes.readableBytesView.prefix(TLSClientHello.largestRecord)))
        if peeked == .needMore, bytes.readableBytes < TLSClientHello.largestRecord { return }
        guard case .hello(let hello) = peeked, ChallengeResponses.isChallengeHello(hello) else {
            pass(context, to: nil)
            return
        }
        if let local = responses.localContext(for: hello) {
            pass(context, to: local)
            return
        }
        waitingForStore = true
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let lookup = context.eventLoop.makePromise(of: NIOSSLContext?.self)
        lookup.completeWithTask { [responses] in await responses.sharedContext(for: hello) }
        lookup.futureResult.whenSuccess { shared in
            let (peek, context) = bound.value
            guard context.channel.isActive else { return }
            guard let shared else {
                context.close(promise: nil)
                return
            }
            peek.pass(context, to: shared)
        }
    }

    /// Sets the connection up (the challenge's TLS when `challenge` is given, else the usual
    /// handlers), hands it the bytes read so far, and leaves the pipeline.
    private func pass(_ context: ChannelHandlerContext, to challenge: NIOSSLContext?) {
        guard let bytes = buffered else { return }
        do {
            if let challenge {
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
