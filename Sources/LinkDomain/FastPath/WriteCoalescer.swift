import NIOCore

/// Joins the buffers written between two flushes into one write, for the TLS handler below it.
///
/// NIO's TLS handler hands every buffered write to BoringSSL on its own, and BoringSSL seals each
/// into a record of its own: NIO's HTTP/2 handler writes a response as three buffers (the HEADERS
/// frame, a DATA frame's 9-byte head, its payload), so ten streams answered from one read went out
/// as thirty records, each paying the record's seal set-up and 22 bytes on the wire. Joined, they
/// are sealed as one or two records of up to 16 KiB (BENCHMARKS.md, "HTTP/2 in fewer records").
///
/// A single buffer between two flushes (HTTP/1.1's one write an answer) is passed on as it is,
/// never copied. A buffer larger than ``joinLimit``, or a file region, is passed on after what
/// was joined before it, in order; so is what was joined once it reaches the limit, which bounds
/// the copy and what the handler holds. Promises are kept: every write's promise completes with
/// the write that carried its bytes.
final class WriteCoalescer: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// TLS's largest record (RFC 8446 §5.1): joining beyond it saves no record.
    static let joinLimit = 16_384

    /// The first buffer since the last flush, kept as it came until a second one joins it.
    private var first: ByteBuffer?
    /// The buffers joined since the last flush. Its storage goes with the write (freed once TLS
    /// has sealed it), so an idle connection holds none.
    private var joined: ByteBuffer?
    private var promise: EventLoopPromise<Void>?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .byteBuffer(let buffer) = unwrapOutboundIn(data), buffer.readableBytes <= Self.joinLimit else {
            passOn(context: context)
            return context.write(data, promise: promise)
        }
        keep(promise, context: context)
        if joined != nil {
            joined!.writeImmutableBuffer(buffer)
        } else if let kept = first {
            var into = context.channel.allocator.buffer(capacity: Self.joinLimit)
            into.writeImmutableBuffer(kept)
            into.writeImmutableBuffer(buffer)
            first = nil
            joined = into
        } else {
            first = buffer
        }
        if let joined, joined.readableBytes >= Self.joinLimit { passOn(context: context) }
    }

    func flush(context: ChannelHandlerContext) {
        passOn(context: context)
        context.flush()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        passOn(context: context)
        context.close(mode: mode, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        passOn(context: context)
    }

    /// One promise for the joined write; each write's own promise follows it.
    private func keep(_ promise: EventLoopPromise<Void>?, context: ChannelHandlerContext) {
        guard let promise else { return }
        if let kept = self.promise {
            kept.futureResult.cascade(to: promise)
        } else {
            self.promise = promise
        }
    }

    /// Writes what is held, without flushing it.
    private func passOn(context: ChannelHandlerContext) {
        let promise = self.promise
        self.promise = nil
        if let buffer = first {
            first = nil
            context.write(wrapOutboundOut(.byteBuffer(buffer)), promise: promise)
        } else if let buffer = joined {
            joined = nil
            context.write(wrapOutboundOut(.byteBuffer(buffer)), promise: promise)
        } else {
            promise?.succeed()
        }
    }
}
