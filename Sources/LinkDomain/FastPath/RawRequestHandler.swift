import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore

/// The first handler of a plain HTTP/1.1 connection: answers the hot requests (association files,
/// the stylesheet, links that need no backend) from the connection's bytes, before NIO's HTTP decoder and
/// the conversions to HTTP types, the handler chain and the router, which cost several times the
/// answer itself (BENCHMARKS.md).
///
/// Every other request's bytes go on to the decoder unchanged, one request at a time. A request is
/// answered here only when no request passed on is still waiting for its response, so answers
/// keep their order. When ``RawRequestHead`` is unsure of a request, the decoder reads the rest of
/// the connection. ``RawReadState`` decides how the connection is read; this handler reads,
/// answers and passes on.
final class RawRequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    let responder: RawResponder
    let ledger: ConnectionLedger
    let logger: Logger
    private var state = RawReadState()
    private var cache = RawResponder.Cache()

    init(responder: RawResponder, ledger: ConnectionLedger, logger: Logger) {
        self.responder = responder
        self.ledger = ledger
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { startReading(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        startReading(context)
        context.fireChannelActive()
    }

    private func startReading(_ context: ChannelHandlerContext) {
        guard state.start() else { return }
        try? context.channel.syncOptions?.setOption(ChannelOptions.autoRead, value: false)
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if state.isPassingThrough {
            // NIO's decoder reads the rest of the connection, as it arrives.
            state.passedOn()
            return context.fireChannelRead(data)
        }
        var bytes = unwrapInboundIn(data)
        state.prepend(&bytes)
        handle(&bytes, context: context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        switch state.readComplete() {
        case .throughPipeline:
            context.fireChannelReadComplete()
            context.channel.read()
        case .here:
            read(context: context)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        context.fireChannelWritabilityChanged()
        guard context.channel.isWritable else { return }
        let (waiting, heldRead) = state.becameWritable()
        if var bytes = waiting {
            handle(&bytes, context: context)
            if state.readComplete() == .throughPipeline {
                context.fireChannelReadComplete()
                context.channel.read()
            }
        }
        if heldRead { context.read() }
    }

    func read(context: ChannelHandlerContext) {
        if state.readRequested(isWritable: context.channel.isWritable) { context.read() }
    }

    func channelInactive(context: ChannelHandlerContext) {
        state.closed()
        context.fireChannelInactive()
    }

    /// Answers or passes on each request in `bytes`; keeps what it cannot handle yet.
    private func handle(_ bytes: inout ByteBuffer, context: ChannelHandlerContext) {
        var answered = false
        defer { if answered { context.flush() } }
        while bytes.readableBytes > 0 {
            if state.isPassingThrough {
                state.passedOn()
                return context.fireChannelRead(wrapInboundOut(bytes))
            }
            guard context.channel.isWritable else { return state.keep(bytes) }
            switch bytes.withUnsafeReadableBytes(RawRequestHead.read) {
            case .incomplete:
                return state.keep(bytes)
            case .unsure:
                state.passThroughFromNowOn()
            case .head(let head):
                if ledger.passedOn == 0, answer(head, in: bytes, context: context) {
                    // A whole request: bytes trickling in are not activity (slowloris).
                    ledger.lastActivity = .now()
                    answered = true
                    bytes.moveReaderIndex(forwardBy: head.length)
                } else if let request = bytes.readSlice(length: head.length) {
                    ledger.requests.passedOnFromBytes()
                    state.passedOn()
                    context.fireChannelRead(wrapInboundOut(request))
                } else {
                    state.passThroughFromNowOn()  // cannot happen: the head was read from these bytes
                }
            }
        }
    }

    private func answer(_ head: RawRequestHead, in bytes: ByteBuffer, context: ChannelHandlerContext) -> Bool {
        let start = ContinuousClock.now
        return bytes.withUnsafeReadableBytes { raw in
            guard
                let answer = responder.answer(
                    head, in: raw, peer: { context.channel.remoteAddress?.ipAddress }, cache: &cache,
                    allocator: context.channel.allocator, logger: logger)
            else { return false }
            context.write(wrapOutboundOut(.byteBuffer(answer.bytes)), promise: nil)
            responder.record(answer, head: head, in: raw, since: start, logger: logger)
            return true
        }
    }
}
