import NIOCore

extension RawRequestHandler {
    /// Writes `last` and closes the connection (`mode`) once it is out: writes complete in order,
    /// so an empty one completes once everything written before it is out.
    func closeOnceOut(
        _ context: ChannelHandlerContext, after last: ByteBuffer = ByteBuffer(), mode: CloseMode = .all, promise: EventLoopPromise<Void>? = nil
    ) {
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.assumeIsolated().whenComplete { _ in context.close(mode: mode, promise: promise) }
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(last)), promise: written)
    }

    /// What the channel holds that the socket has not taken (nil once the channel is closed),
    /// asked through NIO's generic options: 1,900 instructions (BENCHMARKS.md, "One handler accepts").
    func unwrittenBytes(_ context: ChannelHandlerContext) -> Int? {
        try? context.channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)
    }
}
