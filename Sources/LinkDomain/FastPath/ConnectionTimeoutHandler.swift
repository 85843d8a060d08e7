import LinkDomainCore
import LinkDomainStorage
import NIOCore
import NIOHTTPTypes

/// Closes connections that hold a place without using it: idle between requests, or sending a
/// request's head or body slower than one part per `timeout` (slowloris). The head counts only
/// when complete, so a client that trickles header bytes is closed `timeout` after its last
/// request, however busy it keeps the socket.
///
/// While the application works on a request (its body read, its response not finished), the
/// connection stays open: backend timeouts bound that. But a response the client does not read
/// is not work: once the connection has taken no output for `timeout` (the socket's buffers full,
/// the client reading nothing), it is closed, with whatever it holds.
final class ConnectionTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart

    let timeout: TimeAmount
    /// Shared with ``RawRequestHandler`` and ``ImmediateResponseHandler``: their answers are
    /// activity too, and the requests they pass on are the ones in progress.
    let ledger = ConnectionLedger()
    private var check: Scheduled<Void>?
    /// Since when the connection has taken no more output, if it is refusing it now.
    private var unwritableSince: NIODeadline?

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

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        unwritableSince = context.channel.isWritable ? nil : (unwritableSince ?? .now())
        context.fireChannelWritabilityChanged()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        ledger.lastActivity = .now()
        context.fireChannelRead(data)
    }

    private func schedule(_ context: ChannelHandlerContext, at deadline: NIODeadline) {
        guard check == nil else { return }
        check = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            check = nil
            let now = NIODeadline.now()
            if let since = unwritableSince, now >= since + timeout {
                // Output stalled for a whole timeout: a client that never reads its answers.
                context.close(promise: nil)
            } else if ledger.passedOn > 0 && !ledger.requests.isReadingRequest {
                schedule(context, at: unwritableSince.map { $0 + timeout } ?? now + timeout)
            } else if now >= ledger.lastActivity + timeout {
                context.close(promise: nil)
            } else {
                schedule(context, at: ledger.lastActivity + timeout)
            }
        }
    }
}
