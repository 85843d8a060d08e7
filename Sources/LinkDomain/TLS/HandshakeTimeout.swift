import HummingbirdCore
import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore
import NIOSSL
import NIOTLS

/// Wraps a TLS server channel so that a connection whose handshake has not finished within
/// `timeout` is closed: until it finishes, no HTTP handler (and so no idle timeout) is in the
/// pipeline, and a client that never completes its hello would hold the connection for ever.
struct HandshakeTimeoutChannel<Wrapped: HTTPChannelHandler>: HTTPChannelHandler {
    let wrapped: Wrapped
    let timeout: TimeAmount

    var responder: Responder { wrapped.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Wrapped.Value> {
        wrapped.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let tls = try operations.handler(type: NIOSSLServerHandler.self)
            try operations.addHandler(HandshakeTimeoutHandler(timeout: timeout), position: .after(tls))
            return value
        }
    }

    func handle(value: Wrapped.Value, logger: Logger) async {
        await wrapped.handle(value: value, logger: logger)
    }
}

/// Sits right after the TLS handler: closes the channel at the deadline unless the handshake
/// completed first, then leaves the pipeline.
final class HandshakeTimeoutHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    let timeout: TimeAmount
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        context.fireUserInboundEventTriggered(event)
        if case TLSUserEvent.handshakeCompleted = event {
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }
}
