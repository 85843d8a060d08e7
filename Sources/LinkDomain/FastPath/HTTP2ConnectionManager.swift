import LinkDomainCore
import LinkDomainStorage
import NIOCore
import NIOHTTP2

/// An HTTP/2 connection's life, behind NIO's HTTP/2 handler: its open streams (from the handler's
/// stream events, whether a stream was answered from its frames or became a channel) counted on the
/// connection's ledger (the idle clock closes a connection only once it has none and has been
/// idle for the timeout), and the graceful close — on shutdown a GOAWAY naming the last stream
/// opened (later ones are the client's to retry elsewhere), then the close once the streams
/// already open have ended.
final class HTTP2ConnectionManager: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    let ledger: ConnectionLedger
    let idleTimeout: TimeAmount
    private var context: ChannelHandlerContext?
    private var lastStreamID = HTTP2StreamID(0)
    private var isGoingAway = false

    init(ledger: ConnectionLedger, idleTimeout: TimeAmount) {
        self.ledger = ledger
        self.idleTimeout = idleTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { ledger.watch(context.channel, timeout: idleTimeout) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        ledger.stopWatching()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        ledger.stopWatching()
        context.fireChannelInactive()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        ledger.writabilityChanged(isWritable: context.channel.isWritable)
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let created = UserEvent.exactly(event, as: NIOHTTP2StreamCreatedEvent.self) {
            streamOpened(created.streamID)
        } else if UserEvent.exactly(event, as: StreamClosedEvent.self) != nil {
            streamClosed()
        } else if UserEvent.exactly(event, as: ChannelShouldQuiesceEvent.self) != nil {
            goAway(context)
        } else if UserEvent.exactly(event, as: ChannelEvent.self) == .inputClosed {
            // HTTP/2 has no half-closed connection: a client that stops sending is gone.
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func streamOpened(_ id: HTTP2StreamID) {
        ledger.openStreams += 1
        lastStreamID = max(lastStreamID, id)
        ledger.lastActivity = .now()
    }

    private func streamClosed() {
        ledger.openStreams = max(0, ledger.openStreams - 1)
        ledger.lastActivity = .now()
        if isGoingAway, ledger.openStreams == 0, let context { context.close(promise: nil) }
    }

    private func goAway(_ context: ChannelHandlerContext) {
        guard !isGoingAway else { return }
        isGoingAway = true
        let frame = HTTP2Frame(streamID: .rootStream, payload: .goAway(lastStreamID: lastStreamID, errorCode: .noError, opaqueData: nil))
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.assumeIsolated().whenComplete { [self] _ in
            if ledger.openStreams == 0 { self.context?.close(promise: nil) }
        }
        context.writeAndFlush(wrapOutboundOut(frame), promise: written)
    }
}

/// The user events that pass every handler, taken apart by their exact type first: a cast from
/// `Any` that fails walks the runtime's whole cast machinery, and each HTTP/2 stream sends three
/// events past each handler (3,400 of an HTTP/2 request's 134,000 instructions went to the
/// casts). The events looked for are structs and enums, so the exact type is the only one.
enum UserEvent {
    static func exactly<Event>(_ event: Any, as type: Event.Type) -> Event? {
        ObjectIdentifier(Swift.type(of: event)) == ObjectIdentifier(type) ? event as? Event : nil
    }
}
