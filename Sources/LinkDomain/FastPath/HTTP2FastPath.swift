import HummingbirdCore
import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore
import NIOHTTP2
import NIOHTTPTypes
import NIOHTTPTypesHTTP2

/// HTTP/2, what a browser speaks to a TLS listener: NIO's HTTP/2 handler with its streams as
/// child channels made on the event loop, each one answered there when ``ImmediateResponder``
/// can (the association files, links that need no backend), and given the router's async
/// channel and a task only when its request passes on (``StreamHandOff``). Hummingbird's HTTP/2
/// channel wraps every stream in an async channel with a task of its own, a hop across threads
/// per request even for the answers the event loop gives (BENCHMARKS.md, "HTTP/2").
///
/// The connection's idle timeout and graceful close are ``HTTP2ConnectionManager``'s; each
/// stream has its own clock (``ConnectionTimeoutHandler``: a stream sending its request slower
/// than one part per timeout is closed, and with it the connection's last activity).
extension FastPathChannel {
    func setUpHTTP2(_ channel: any Channel, needsATask: @escaping NeedsATask) throws {
        let manager = HTTP2ConnectionManager(ledger: ConnectionLedger(), idleTimeout: idleTimeout)
        let operations = channel.pipeline.syncOperations
        _ = try operations.configureHTTP2Pipeline(
            mode: .server, connectionConfiguration: .init(), streamConfiguration: .init(),
            streamDelegate: HTTP2ConnectionManager.StreamDelegate(manager: NIOLoopBound(manager, eventLoop: channel.eventLoop))
        ) { [self] stream in
            stream.eventLoop.makeCompletedFuture {
                let operations = stream.pipeline.syncOperations
                try operations.addHandler(HTTP2FramePayloadToHTTPServerCodec())
                let ledger = ConnectionLedger()
                try operations.addHandler(ConnectionTimeoutHandler(timeout: idleTimeout, ledger: ledger))
                try operations.addHandler(ImmediateResponseHandler(responder: immediate, finisher: finisher, logger: logger))
                try operations.addHandler(StreamHandOff(logger: logger, needsATask: needsATask))
            }
        }
        try operations.addHandler(manager)
    }
}

/// The last handler of an HTTP/2 stream until its request passes on: then it installs the
/// router's part behind itself (Hummingbird's connection state and async channel, as
/// Hummingbird's HTTP/2 stream channel does) and hands the stream to a task. A stream the event
/// loop answers never gets either.
final class StreamHandOff: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let logger: Logger
    private let needsATask: NeedsATask
    private var isInstalled = false

    init(logger: Logger, needsATask: @escaping NeedsATask) {
        self.logger = logger
        self.needsATask = needsATask
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !isInstalled {
            isInstalled = true
            do {
                try context.pipeline.syncOperations.addHandler(HTTPConnectionStateHandler(logger: logger))
                needsATask(try HTTP1Channel.Value(wrappingChannelSynchronously: context.channel))
            } catch {
                logger.error("could not install the HTTP handlers: \(error)")
                return context.close(promise: nil)
            }
        }
        context.fireChannelRead(data)
    }
}
