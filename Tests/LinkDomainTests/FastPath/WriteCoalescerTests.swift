import NIOCore
import NIOEmbedded
import Testing

@testable import LinkDomain

@Suite("Writes between two flushes joined for TLS")
struct WriteCoalescerTests {
    static func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(WriteCoalescer())
        return channel
    }

    /// What reached the channel, one string a write.
    static func written(_ channel: EmbeddedChannel) throws -> [String] {
        var writes: [String] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { writes.append(String(buffer: buffer)) }
        return writes
    }

    static func write(_ text: String, to channel: EmbeddedChannel) -> EventLoopFuture<Void> {
        channel.write(ByteBuffer(string: text))
    }

    @Test("three writes and a flush leave as one write, in order, and every promise completes")
    func joined() throws {
        let channel = try Self.channel()
        let promises = ["HEADERS", "DATA head", "payload"].map { Self.write($0, to: channel) }
        #expect(try Self.written(channel).isEmpty)
        channel.flush()
        #expect(try Self.written(channel) == ["HEADERSDATA headpayload"])
        for promise in promises { try promise.wait() }
        // The next batch starts afresh.
        _ = Self.write("second", to: channel)
        _ = Self.write(" batch", to: channel)
        channel.flush()
        #expect(try Self.written(channel) == ["second batch"])
    }

    @Test("a single write between two flushes passes on as it came")
    func single() throws {
        let channel = try Self.channel()
        let promise = Self.write("one answer", to: channel)
        channel.flush()
        #expect(try Self.written(channel) == ["one answer"])
        try promise.wait()
    }

    @Test("a buffer too large to join passes on after what was joined before it")
    func large() throws {
        let channel = try Self.channel()
        let big = String(repeating: "b", count: WriteCoalescer.joinLimit + 1)
        _ = Self.write("a", to: channel)
        _ = Self.write("c", to: channel)
        _ = Self.write(big, to: channel)
        _ = Self.write("d", to: channel)
        channel.flush()
        #expect(try Self.written(channel) == ["ac", big, "d"])
    }

    @Test("what was joined passes on once it reaches the record's size, the rest after it")
    func limit() throws {
        let channel = try Self.channel()
        let half = String(repeating: "h", count: WriteCoalescer.joinLimit / 2)
        for _ in 0..<3 { _ = Self.write(half, to: channel) }
        channel.flush()
        #expect(try Self.written(channel) == [half + half, half])
    }

    @Test("a joined write that fails fails every promise it carried")
    func failed() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(FailingWrites())
        try channel.pipeline.syncOperations.addHandler(WriteCoalescer())
        let first = Self.write("a", to: channel)
        let second = Self.write("b", to: channel)
        channel.flush()
        #expect(throws: FailingWrites.Refused.self) { try first.wait() }
        #expect(throws: FailingWrites.Refused.self) { try second.wait() }
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
