import Logging
import NIOCore

/// The first handler of a plain HTTP/1.1 connection: answers the hot requests (association files,
/// the stylesheet, straight redirects) from the connection's bytes, before NIO's HTTP decoder and
/// the conversions to HTTP types, the handler chain and the router, which cost several times the
/// answer itself (BENCHMARKS.md).
///
/// Every other request's bytes go on to the decoder unchanged, one request at a time. A request is
/// answered here only when no request passed on is still waiting for its response, so answers
/// keep their order. When ``RawRequestHead`` is unsure of a request, the decoder reads the rest of
/// the connection. While the connection cannot take more output, nothing more is read.
final class RawRequestHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    let responder: RawResponder
    let ledger: ConnectionLedger
    let logger: Logger
    /// Bytes read but not yet handled: an incomplete head, or requests waiting for the connection to drain.
    private var unread: ByteBuffer?
    /// The decoder reads everything from here on.
    private var passingThrough = false
    /// A read the pipeline asked for while the connection could not take more output.
    private var heldRead = false
    /// Something was passed on since the last read completed.
    private var passedOnSinceRead = false
    private var reading = false
    private var cache = RawResponder.Cache()

    init(responder: RawResponder, ledger: ConnectionLedger, logger: Logger) {
        self.responder = responder
        self.ledger = ledger
        self.logger = logger
    }

    // Reads: the channel's automatic read after each read is turned off, and this handler asks for
    // the next one itself. After a read whose requests were all answered here, it asks straight
    // from its place at the head of the pipeline, and the pipeline behind it never hears of the
    // read (going through every handler there and back cost more than the answer, BENCHMARKS.md).
    // After a read that passed something on, it asks through the whole pipeline, as the automatic
    // read does, so that NIO's async channel can hold the read back while the router is busy.

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { startReading(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        startReading(context)
        context.fireChannelActive()
    }

    private func startReading(_ context: ChannelHandlerContext) {
        guard !reading else { return }
        reading = true
        try? context.channel.syncOptions?.setOption(ChannelOptions.autoRead, value: false)
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !passingThrough else {
            passedOnSinceRead = true
            return context.fireChannelRead(data)
        }
        var bytes = unwrapInboundIn(data)
        if var earlier = unread {
            unread = nil
            earlier.writeBuffer(&bytes)
            bytes = earlier
        }
        if handle(&bytes, context: context) { passedOnSinceRead = true }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if passedOnSinceRead {
            passedOnSinceRead = false
            context.fireChannelReadComplete()
            context.channel.read()
        } else {
            read(context: context)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        context.fireChannelWritabilityChanged()
        if context.channel.isWritable, var bytes = unread {
            unread = nil
            if handle(&bytes, context: context) {
                context.fireChannelReadComplete()
                context.channel.read()
            }
        }
        if heldRead, context.channel.isWritable {
            heldRead = false
            context.read()
        }
    }

    func read(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            context.read()
        } else {
            heldRead = true
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        unread = nil
        context.fireChannelInactive()
    }

    /// Answers or passes on each request in `bytes`; keeps what it cannot handle yet. Whether any
    /// bytes were passed on.
    @discardableResult
    private func handle(_ bytes: inout ByteBuffer, context: ChannelHandlerContext) -> Bool {
        var answered = false
        var passedOn = false
        defer { if answered { context.flush() } }
        while bytes.readableBytes > 0 {
            if passingThrough {
                context.fireChannelRead(wrapInboundOut(bytes))
                return true
            }
            guard context.channel.isWritable else {
                unread = bytes
                return passedOn
            }
            switch bytes.withUnsafeReadableBytes(RawRequestHead.read) {
            case .incomplete:
                unread = bytes
                return passedOn
            case .unsure:
                passingThrough = true
            case .head(let head):
                if ledger.passedOn == 0, answer(head, in: bytes, context: context) {
                    // A whole request: bytes trickling in are not activity (slowloris).
                    ledger.lastActivity = .now()
                    answered = true
                    bytes.moveReaderIndex(forwardBy: head.length)
                } else if let request = bytes.readSlice(length: head.length) {
                    ledger.requests.passedOnFromBytes()
                    passedOn = true
                    context.fireChannelRead(wrapInboundOut(request))
                } else {
                    passingThrough = true  // cannot happen: the head was read from these bytes
                }
            }
        }
        return passedOn
    }

    private func answer(_ head: RawRequestHead, in bytes: ByteBuffer, context: ChannelHandlerContext) -> Bool {
        let start = ContinuousClock.now
        return bytes.withUnsafeReadableBytes { raw in
            guard let answer = responder.answer(head, in: raw, peer: { context.channel.remoteAddress?.ipAddress }, cache: &cache,
                                                allocator: context.channel.allocator, logger: logger) else { return false }
            context.write(wrapOutboundOut(.byteBuffer(answer.bytes)), promise: nil)
            responder.record(answer, head: head, in: raw, since: start, logger: logger)
            return true
        }
    }
}
