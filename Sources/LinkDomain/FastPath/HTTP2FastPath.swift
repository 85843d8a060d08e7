import HummingbirdCore
import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore
import NIOHTTP2
import NIOHTTPTypes
import NIOHTTPTypesHTTP2

/// HTTP/2, what a browser speaks to a TLS listener: NIO's HTTP/2 handler delivering the
/// connection's frames, ``HTTP2ConnectionManager`` for the connection's life, then
/// ``HTTP2StreamAnswerer``, which answers from a stream's HEADERS what ``ImmediateResponder`` can
/// (the association files, links that need no backend) without making the stream a channel, and
/// last NIO's stream multiplexer for the streams it passes on. Those become child channels with the
/// HTTP-types codec and their own clock, and get the router's async channel and a task
/// (``StreamHandOff``) when their request reaches it. A child channel per stream, even one the
/// event loop answered at once, cost half of each request (BENCHMARKS.md, "HTTP/2").
///
/// Each child stream has its own clock (``ConnectionTimeoutHandler``: a stream sending its request
/// slower than one part per timeout is closed).
extension FastPathChannel {
    func setUpHTTP2(_ channel: any Channel, needsATask: @escaping NeedsATask) throws {
        let operations = channel.pipeline.syncOperations
        // Header blocks are checked by `HTTP2StreamAnswerer` (requests) and made valid by us (responses).
        var connection = NIOHTTP2Handler.ConnectionConfiguration()
        connection.headerBlockValidation = .disabled
        try operations.addHandler(WriteCoalescer())
        try operations.addHandler(NIOHTTP2Handler(mode: .server, connectionConfiguration: connection, streamConfiguration: .init()))
        try operations.addHandler(HTTP2ConnectionManager(ledger: ConnectionLedger(), idleTimeout: idleTimeout))
        try operations.addHandler(HTTP2StreamAnswerer(answers: decodedHeads, blocks: headerBlocks))
        let multiplexer = HTTP2StreamMultiplexer(mode: .server, channel: channel) { [self] stream in
            stream.eventLoop.makeCompletedFuture {
                let operations = stream.pipeline.syncOperations
                try operations.addHandler(HTTP2FramePayloadToHTTPServerCodec())
                let ledger = ConnectionLedger()
                try operations.addHandler(ConnectionTimeoutHandler(timeout: idleTimeout, ledger: ledger))
                try operations.addHandler(ImmediateResponseHandler(answers: decodedHeads))
                try operations.addHandler(StreamHandOff(logger: logger, needsATask: needsATask))
            }
        }
        try operations.addHandler(multiplexer)
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
