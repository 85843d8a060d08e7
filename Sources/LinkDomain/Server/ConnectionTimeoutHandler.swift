import NIOCore
import NIOHTTPTypes

/// Closes connections that hold a place without using it: idle between requests, or sending a
/// request's head or body slower than one part per `timeout` (slowloris). The head counts only
/// when complete, so a client that trickles header bytes is closed `timeout` after its last
/// request, however busy it keeps the socket.
///
/// While the application works on a request (its body read, its response not finished), the
/// connection stays open: backend timeouts bound that.
final class ConnectionTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let timeout: TimeAmount
    /// Requests whose head has arrived and whose response has not finished.
    private var inProgress = 0
    /// Between a request's head and its end.
    private var reading = false
    /// Shared with ``RawRequestHandler``, whose answers are activity too.
    let ledger = ConnectionLedger()
    private var check: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { schedule(context, at: ledger.lastActivity + timeout) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        ledger.lastActivity = .now()
        schedule(context, at: ledger.lastActivity + timeout)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        check?.cancel()
        check = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        ledger.lastActivity = .now()
        switch unwrapInboundIn(data) {
        case .head:
            inProgress += 1
            reading = true
        case .body:
            break
        case .end:
            reading = false
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            inProgress -= 1
            ledger.responseEnded()
        }
        context.write(data, promise: promise)
    }

    private func schedule(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        guard check == nil else { return }
        check = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            check = nil
            let now = NIODeadline.now()
            if inProgress > 0 && !reading {
                schedule(context, at: now + timeout)
            } else if now >= ledger.lastActivity + timeout {
                context.close(promise: nil)
            } else {
                schedule(context, at: ledger.lastActivity + timeout)
            }
        }
    }
}
