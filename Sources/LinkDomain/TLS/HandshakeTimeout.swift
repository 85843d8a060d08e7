import HummingbirdCore
import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore
import NIOSSL
import NIOTLS

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
