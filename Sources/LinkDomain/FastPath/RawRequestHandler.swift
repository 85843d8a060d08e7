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

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client done sending: the requests waiting for the connection to drain are handled
        // first, and the end goes on after them (``inputHasEnded(_:)``).
        if event as? ChannelEvent == .inputClosed {
            if state.endOfInput(isWritable: context.channel.isWritable) { inputHasEnded(context) }
            return
        }
        // The server shutting down: with nothing for the router (every request here is answered
        // as it is read), the connection ends now. The router's half, once installed, decides.
        if event is ChannelShouldQuiesceEvent, let handOff, !handOff.isInstalled {
            return closeWhenWritten(context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// The client's end of input, after every request it sent before it was handled: the
    /// connection ends once its answers are out, or the router's half hears of the end and closes
    /// once it has answered its own.
    private func inputHasEnded(_ context: ChannelHandlerContext) {
        if let handOff, !handOff.isInstalled { return closeWhenWritten(context) }
        context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
    }

    /// A close from behind (the router's half done with a half-closed client, the server shutting
    /// down, an error) waits until what was written is out: NIO's close drops writes the socket
    /// has not taken, and once the client has half-closed, even a close of the output alone is a
    /// whole close. Nothing more is answered here meanwhile. The wait is the idle timeout's at
    /// most, whatever is still with the router (``ConnectionLedger/closeHeld``); the idle clock's
    /// close (a client that does not read) is not held.
    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard writesToSocket, mode != .input, !ledger.expired, let unwritten = unwrittenBytes(context), unwritten > 0 else {
            return context.close(mode: mode, promise: promise)
        }
        state.close()
        if !ledger.closeHeld {
            ledger.closeHeld = true
            ledger.lastActivity = .now()
        }
        closeOnceOut(context, mode: mode, promise: promise)
    }

    /// Ends the connection: nothing more is read or handled, `last` is written, and the
    /// connection closes once everything written to it is out.
    private func closeWhenWritten(_ context: ChannelHandlerContext, _ last: ByteBuffer = ByteBuffer()) {
        state.close()
        if writesToSocket {
            context.writeAndFlush(wrapOutboundOut(.byteBuffer(last)), promise: nil)
            // The socket took it all at once, as it takes nearly every answer: nothing to wait
            // for. A promise to wait with cost a closing connection about 4,000 instructions
            // (BENCHMARKS.md, "One handler accepts").
            if unwrittenBytes(context) == 0 {
                return context.close(promise: nil)
            }
            allowHalfClosure(context)
            return closeOnceOut(context)
        }
        closeOnceOut(context, after: last)
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
            // What was passed on reaches the router's half before the end of input does.
            if state.readComplete() == .throughPipeline {
                context.fireChannelReadComplete()
                context.channel.read()
            }
            if state.endOfInputIsDue(isWritable: context.channel.isWritable) {
                return inputHasEnded(context)
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
                if ledger.passedOn == 0, let answer = responder.answerBytes(head, in: bytes, context: context, cache: &cache, logger: logger) {
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
}
