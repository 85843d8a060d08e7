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
    /// The idle timeout this handler keeps until the router's half joins it (nil: that half's alone).
    let idleTimeout: TimeAmount?
    /// Installs the router's half behind this handler when a request first needs it (nil: it is there).
    let handOff: RouterHandOff?
    /// Whether this handler's writes go straight to the socket (no TLS in front of it), so that
    /// what a write leaves unwritten is the channel's own buffered bytes. Such a connection's
    /// half-close is this handler's to allow (``allowHalfClosure(_:)``); behind TLS it is allowed
    /// when the connection is set up.
    let writesToSocket: Bool
    let logger: Logger
    private var halfClosureAllowed: Bool
    private var state = RawReadState()
    private var cache = RawResponder.Cache()

    init(
        responder: RawResponder, ledger: ConnectionLedger, idleTimeout: TimeAmount? = nil, handOff: RouterHandOff? = nil,
        writesToSocket: Bool = false, logger: Logger
    ) {
        self.responder = responder
        self.ledger = ledger
        self.idleTimeout = idleTimeout
        self.handOff = handOff
        self.writesToSocket = writesToSocket
        self.halfClosureAllowed = !writesToSocket
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { startReading(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if idleTimeout != nil { ledger.stopWatching() }
    }

    func channelActive(context: ChannelHandlerContext) {
        startReading(context)
        context.fireChannelActive()
    }

    private func startReading(_ context: ChannelHandlerContext) {
        guard state.start() else { return }
        if let idleTimeout {
            ledger.lastActivity = .now()
            ledger.watch(context.channel, timeout: idleTimeout)
        }
        // Asked from here, the first read is pending before NIO's automatic read would ask the
        // whole pipeline (which it does only when none is).
        context.read()
    }

    /// The router's half, once installed, decides for itself.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The server shutting down, or the client done sending: with nothing for the router
        // (every request here is answered as it is read), the connection ends now, or once the
        // requests waiting for it to drain are answered.
        if let handOff, !handOff.isInstalled {
            if event is ChannelShouldQuiesceEvent {
                return closeWhenWritten(context)
            }
            if event as? ChannelEvent == .inputClosed {
                if state.endOfInput(isWritable: context.channel.isWritable) { closeWhenWritten(context) }
                return
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Ends the connection: nothing more is read or handled, `last` is written, and the
    /// connection closes once everything written to it is out.
    private func closeWhenWritten(_ context: ChannelHandlerContext, _ last: ByteBuffer = ByteBuffer()) {
        state.close()
        var last = last
        if writesToSocket {
            context.writeAndFlush(wrapOutboundOut(.byteBuffer(last)), promise: nil)
            // The socket took it all at once, as it takes nearly every answer: nothing to wait
            // for. A promise to wait with cost a closing connection about 4,000 instructions
            // (BENCHMARKS.md, "One handler accepts").
            if (try? context.channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)) == 0 {
                return context.channel.close(promise: nil)
            }
            // Writes complete in order: an empty one completes once the rest is out.
            allowHalfClosure(context)
            last = ByteBuffer()
        }
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(last)), promise: written)
    }

    /// Lets the client's half-close reach this handler and the router's half as an event: without
    /// it NIO closes the connection as it reads the end of the input, dropping whatever is still
    /// unwritten and whatever the router has yet to answer. Allowed once something could be
    /// lost that way, so a connection that only gets a closing answer the socket takes whole (a
    /// click with `Connection: close`) does not pay NIO's option setting, 1,200 instructions
    /// (BENCHMARKS.md, "One handler accepts").
    private func allowHalfClosure(_ context: ChannelHandlerContext) {
        guard !halfClosureAllowed else { return }
        halfClosureAllowed = true
        try? context.channel.syncOptions?.setOption(ChannelOptions.allowRemoteHalfClosure, value: true)
    }

    /// Passes `bytes` to the router's half, installing it first if need be.
    private func passOn(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        if state.inputEnded {
            // One for the router among requests that waited past the client's end of input: not
            // started (its half would close as it finished, dropping what the socket has not taken).
            return closeWhenWritten(context)
        }
        allowHalfClosure(context)
        guard handOff?.install() ?? true else {
            state.close()
            return context.close(promise: nil)
        }
        state.passedOn()
        context.fireChannelRead(wrapInboundOut(bytes))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // After an answer that ends the connection, nothing more is the client's to send.
        if state.isClosing { return }
        if state.isPassingThrough {
            // NIO's decoder reads the rest of the connection, as it arrives.
            return passOn(unwrapInboundIn(data), context: context)
        }
        var bytes = unwrapInboundIn(data)
        state.prepend(&bytes)
        handle(&bytes, context: context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        switch state.readComplete() {
        case .throughPipeline:
            // NIO's automatic read asks the whole pipeline next, as no read is pending.
            context.fireChannelReadComplete()
        case .here:
            read(context: context)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if idleTimeout != nil { ledger.writabilityChanged(isWritable: context.channel.isWritable) }
        context.fireChannelWritabilityChanged()
        guard context.channel.isWritable else { return }
        let (waiting, heldRead) = state.becameWritable()
        if var bytes = waiting {
            handle(&bytes, context: context)
            if state.closesOnceDrained(isWritable: context.channel.isWritable) {
                return closeWhenWritten(context)
            }
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
        if idleTimeout != nil { ledger.stopWatching() }
        context.fireChannelInactive()
    }

    /// Answers or passes on each request in `bytes`; keeps what it cannot handle yet.
    private func handle(_ bytes: inout ByteBuffer, context: ChannelHandlerContext) {
        var answered = false
        defer { if answered { context.flush() } }
        while bytes.readableBytes > 0 {
            if state.isPassingThrough { return passOn(bytes, context: context) }
            guard context.channel.isWritable else { return state.keep(bytes) }
            switch bytes.withUnsafeReadableBytes(RawRequestHead.read) {
            case .incomplete:
                return state.keep(bytes)
            case .unsure:
                state.passThroughFromNowOn()
            case .head(let head):
                if ledger.passedOn == 0, let answer = answer(head, in: bytes, context: context) {
                    if head.closesConnection {
                        // The last answer: the connection closes once it is out, and the rest is dropped.
                        closeWhenWritten(context, answer)
                        return
                    }
                    allowHalfClosure(context)
                    context.write(wrapOutboundOut(.byteBuffer(answer)), promise: nil)
                    // A whole request: bytes trickling in are not activity (slowloris).
                    ledger.lastActivity = .now()
                    answered = true
                    bytes.moveReaderIndex(forwardBy: head.length)
                } else if let request = bytes.readSlice(length: head.length) {
                    ledger.requests.passedOnFromBytes()
                    passOn(request, context: context)
                    if state.isClosing { return }
                } else {
                    state.passThroughFromNowOn()  // cannot happen: the head was read from these bytes
                }
            }
        }
    }

    /// The answer's bytes, counted in the metrics, or nil when the request is the router's.
    private func answer(_ head: RawRequestHead, in bytes: ByteBuffer, context: ChannelHandlerContext) -> ByteBuffer? {
        let start = ContinuousClock.now
        return bytes.withUnsafeReadableBytes { raw in
            func answer(cache: inout RawResponder.Cache) -> RawResponder.Answer? {
                responder.answer(
                    head, in: raw, peer: { context.channel.remoteAddress?.peerText }, cache: &cache, allocator: context.channel.allocator,
                    logger: logger)
            }
            // A connection that closes after this answer uses its thread's cache, not its own.
            guard let answer = head.closesConnection ? answer(cache: &RawResponder.SharedCache.current.cache) : answer(cache: &cache)
            else { return nil }
            responder.record(answer, head: head, in: raw, since: start, logger: logger)
            return answer.bytes
        }
    }
}
