import NIOCore

/// Joins the buffers written between two flushes into one write, for the TLS handler below it.
///
/// NIO's TLS handler hands every buffered write to BoringSSL on its own, and BoringSSL seals each
/// into a record of its own: NIO's HTTP/2 handler writes a response as three buffers (the HEADERS
/// frame, a DATA frame's 9-byte head, its payload), so ten streams answered from one read went out
/// as thirty records, each paying the record's seal set-up and 22 bytes on the wire. Joined, they
/// are sealed as one or two records of up to 16 KiB (BENCHMARKS.md, "HTTP/2 in fewer records").
///
/// A single buffer between two flushes is passed on as it is, never copied. What is held goes on
/// before a buffer that would take it past ``joinLimit`` (which then waits to be joined in turn)
/// and before a file region, in order: what the handler holds and copies is at most a record.
/// Promises are kept: every write's promise completes with the write that carried its bytes.
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
        // What would not fit in one record beside what is held goes on first, so that a full
        // frame's payload is never copied only to be cut into records again.
        if heldBytes + buffer.readableBytes > Self.joinLimit { passOn(context: context) }
        keep(promise)
        if joined != nil {
            joined!.writeImmutableBuffer(buffer)
        } else if let kept = first {
            // Sized for what is there (a SETTINGS acknowledgement and a WINDOW_UPDATE are 22 bytes),
            // growing as ByteBuffer grows, to a record's most.
            let wanted = 2 * (kept.readableBytes + buffer.readableBytes)
            var into = context.channel.allocator.buffer(capacity: min(Self.joinLimit, max(wanted, 1_024)))
            into.writeImmutableBuffer(kept)
            into.writeImmutableBuffer(buffer)
            first = nil
            joined = into
        } else {
            first = buffer
        }
    }

    private var heldBytes: Int { joined?.readableBytes ?? first?.readableBytes ?? 0 }

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
    private func keep(_ promise: EventLoopPromise<Void>?) {
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
        // At most one of the two holds anything.
        if let buffer = first ?? joined {
            first = nil
            joined = nil
            context.write(wrapOutboundOut(.byteBuffer(buffer)), promise: promise)
        } else {
            promise?.succeed()
        }
    }
}
