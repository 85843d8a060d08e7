import NIOCore
import NIOConcurrencyHelpers
import NIOEmbedded
import Testing

@testable import LinkDomain

@Suite("Writes between two flushes joined for TLS")
struct WriteCoalescerTests {
    /// A channel with the coalescer nearest its tail, and `below` between it and the socket.
    static func channel(below: [any ChannelHandler] = []) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers(below)
        try channel.pipeline.syncOperations.addHandler(WriteCoalescer())
        return channel
    }

    /// What reached the channel, one entry a write (a file region as `<region>`).
    static func written(_ channel: EmbeddedChannel) throws -> [String] {
        var writes: [String] = []
        while let data = try channel.readOutbound(as: IOData.self) {
            switch data {
            case .byteBuffer(let buffer): writes.append(String(buffer: buffer))
            case .fileRegion: writes.append("<region>")
            }
        }
        return writes
    }

    /// How a write's promise ended: nil while it has not, never a wait that could hang the suite.
    struct Outcome: Sendable {
        let box = NIOLockedValueBox<Result<Void, any Error>?>(nil)
        var result: Result<Void, any Error>? { box.withLockedValue { $0 } }
        var isPending: Bool { result == nil }
        var succeeded: Bool { if case .success = result { true } else { false } }
        var failed: Bool { if case .failure = result { true } else { false } }
    }

    static func every(_ outcomes: [Outcome], _ property: KeyPath<Outcome, Bool>) -> Bool {
        outcomes.allSatisfy { $0[keyPath: property] }
    }

    static func write(_ text: String, to channel: EmbeddedChannel) -> Outcome {
        let outcome = Outcome()
        channel.write(ByteBuffer(string: text)).whenComplete { result in outcome.box.withLockedValue { $0 = result } }
        return outcome
    }

    @Test("three writes and a flush leave as one write, in order, and every promise completes once flushed")
    func joined() throws {
        let channel = try Self.channel()
        let outcomes = ["HEADERS", "DATA head", "payload"].map { Self.write($0, to: channel) }
        #expect(try Self.written(channel).isEmpty)
        #expect(Self.every(outcomes, \.isPending))
        channel.flush()
        #expect(try Self.written(channel) == ["HEADERSDATA headpayload"])
        #expect(Self.every(outcomes, \.succeeded))
        _ = Self.write("second", to: channel)
        channel.write(ByteBuffer(string: " batch"), promise: nil)
        let last = Self.write(", its promise after a write without one", to: channel)
        channel.flush()
        #expect(try Self.written(channel) == ["second batch, its promise after a write without one"])
        #expect(last.succeeded)
    }

    @Test("a single write between two flushes passes on as it came, its bytes not copied")
    func single() throws {
        let channel = try Self.channel()
        let buffer = ByteBuffer(string: "one answer")
        let sent = buffer.withUnsafeReadableBytes { $0.baseAddress }
        channel.write(buffer, promise: nil)
        channel.flush()
        let received = try #require(try channel.readOutbound(as: ByteBuffer.self))
        #expect(received.withUnsafeReadableBytes { $0.baseAddress } == sent)
        #expect(String(buffer: received) == "one answer")
    }

    @Test("a buffer too large to join passes on after what was joined before it, each promise with its own bytes")
    func large() throws {
        let channel = try Self.channel()
        let big = String(repeating: "b", count: WriteCoalescer.joinLimit + 1)
        let outcomes = ["a", "c", big, "d"].map { Self.write($0, to: channel) }
        // What came before the large buffer went on with it, unflushed.
        #expect(Self.every(outcomes, \.isPending))
        channel.flush()
        #expect(try Self.written(channel) == ["ac", big, "d"])
        #expect(Self.every(outcomes, \.succeeded))
    }

    @Test("what would pass a record's size beside what is held goes on after it, not copied into it")
    func limit() throws {
        let channel = try Self.channel()
        let half = String(repeating: "h", count: WriteCoalescer.joinLimit / 2)
        let full = String(repeating: "f", count: WriteCoalescer.joinLimit)
        let outcomes = [half, half, half, "9-byte hd", full].map { Self.write($0, to: channel) }
        channel.flush()
        #expect(try Self.written(channel) == [half + half, half + "9-byte hd", full])
        #expect(Self.every(outcomes, \.succeeded))
    }

    @Test("a file region passes on in its place, after what was held and before what follows")
    func fileRegion() throws {
        let channel = try Self.channel()
        let file = try NIOFileHandle(_deprecatedPath: "/dev/null")
        defer { try? file.close() }
        _ = Self.write("a", to: channel)
        _ = Self.write("b", to: channel)
        channel.write(IOData.fileRegion(FileRegion(fileHandle: file, readerIndex: 0, endIndex: 0)), promise: nil)
        _ = Self.write("c", to: channel)
        channel.flush()
        #expect(try Self.written(channel) == ["ab", "<region>", "c"])
    }

    /// A coalescer holding "a" and "b" unflushed, above a recorder of what passes it.
    static func holdingTwo() throws -> (EmbeddedChannel, OutboundEvents) {
        let recorder = OutboundEvents()
        let channel = try Self.channel(below: [recorder])
        _ = Self.write("a", to: channel)
        _ = Self.write("b", to: channel)
        return (channel, recorder)
    }

    @Test("closing passes what is held on before the close, unflushed, as the TLS handler would have held it")
    func close() throws {
        let (channel, recorder) = try Self.holdingTwo()
        channel.close(promise: nil)
        #expect(recorder.events == ["write ab", "close"])
    }

    @Test("a coalescer taken out of the pipeline passes on what it held")
    func removed() throws {
        let (channel, recorder) = try Self.holdingTwo()
        let coalescer = try channel.pipeline.syncOperations.handler(type: WriteCoalescer.self)
        try channel.pipeline.syncOperations.removeHandler(coalescer).wait()
        channel.flush()
        #expect(recorder.events == ["write ab", "flush"])
    }

    @Test("a joined write that fails fails every promise it carried")
    func failed() throws {
        let channel = try Self.channel(below: [FailingWrites()])
        let first = Self.write("a", to: channel)
        let second = Self.write("b", to: channel)
        channel.flush()
        #expect(first.failed && second.failed)
    }
}

/// Fails every write that reaches it, as a channel whose peer has gone does.
final class FailingWrites: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    struct Refused: Error {}

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        promise?.fail(Refused())
    }
}

/// The outbound events that reach it, in order, passed on unchanged.
final class OutboundEvents: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    var events: [String] = []

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        events.append("write " + String(buffer: unwrapOutboundIn(data)))
        context.write(data, promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        events.append("flush")
        context.flush()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        events.append("close")
        context.close(mode: mode, promise: promise)
    }
}
