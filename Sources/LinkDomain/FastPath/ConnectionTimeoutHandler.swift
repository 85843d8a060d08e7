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
///
/// The clock is the ledger's (``ConnectionLedger/watch(_:timeout:)``), so that on plain HTTP/1.1
/// ``RawRequestHandler`` starts it before this handler exists: this handler joins it when the
/// router's half of the pipeline is installed, and marks each decoded part as activity.
final class ConnectionTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart

    let timeout: TimeAmount
    /// Shared with ``RawRequestHandler`` and ``ImmediateResponseHandler``: their answers are
    /// activity too, and the requests they pass on are the ones in progress.
    let ledger: ConnectionLedger

    init(timeout: TimeAmount, ledger: ConnectionLedger = ConnectionLedger()) {
        self.timeout = timeout
        self.ledger = ledger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { ledger.watch(context.channel, timeout: timeout) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        ledger.stopWatching()
    }

    func channelActive(context: ChannelHandlerContext) {
        ledger.lastActivity = .now()
        ledger.watch(context.channel, timeout: timeout)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        ledger.stopWatching()
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        ledger.writabilityChanged(isWritable: context.channel.isWritable)
        context.fireChannelWritabilityChanged()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        ledger.lastActivity = .now()
        context.fireChannelRead(data)
    }
}
