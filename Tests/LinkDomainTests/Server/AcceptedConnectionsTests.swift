import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@testable import LinkDomain

/// The listening socket's own handler sets each connection up; NIO still registers it.
@Suite("Accepting connections")
struct AcceptedConnectionsTests {
    /// Writes back what it reads.
    final class Echo: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            context.writeAndFlush(data, promise: nil)
        }
    }

    /// Hands the first bytes read to a promise.
    final class FirstRead: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let promise: EventLoopPromise<String>

        init(promise: EventLoopPromise<String>) {
            self.promise = promise
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            promise.succeed(String(buffer: unwrapInboundIn(data)))
        }
    }

    static func echo(_ port: Int, _ text: String, on loop: any EventLoop) async throws -> String {
        let promise = loop.makePromise(of: String.self)
        let client = try await ClientBootstrap(group: loop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(FirstRead(promise: promise)) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        try await client.writeAndFlush(ByteBuffer(string: text))
        let answer = try await promise.futureResult.get()
        try await client.close()
        return answer
    }

    @Test("each connection is set up once, on its loop, and served")
    func setUpOnceAndServed() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let setUps = NIOLockedValueBox(0)
        let listening = try await ServerBootstrap(group: loop, childGroup: loop)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        AcceptedConnections(setUp: { child in
                            #expect(child.eventLoop.inEventLoop)
                            setUps.withLockedValue { $0 += 1 }
                            try child.pipeline.syncOperations.addHandler(Echo())
                        }))
                }
            }
            // A tripwire: a connection passed through the bootstrap's own accept handler would run this too.
            .childChannelInitializer { channel in
                setUps.withLockedValue { $0 += 100 }
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(listening.localAddress?.port)
        #expect(try await Self.echo(port, "one", on: loop) == "one")
        #expect(try await Self.echo(port, "two", on: loop) == "two")
        #expect(setUps.withLockedValue { $0 } == 2)
        try await listening.close()
    }

    @Test("a connection whose set-up fails is closed, and the listener goes on accepting")
    func failedSetUpCloses() async throws {
        struct Refused: Error {}
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let refuseNext = NIOLockedValueBox(true)
        let listening = try await ServerBootstrap(group: loop, childGroup: loop)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        AcceptedConnections(setUp: { child in
                            if refuseNext.withLockedValue({ refused in
                                defer { refused = false }; return refused
                            }) {
                                throw Refused()
                            }
                            try child.pipeline.syncOperations.addHandler(Echo())
                        }))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(listening.localAddress?.port)
        let refused = try await ClientBootstrap(group: loop).connect(host: "127.0.0.1", port: port).get()
        try await refused.closeFuture.get()
        #expect(try await Self.echo(port, "next", on: loop) == "next")
        try await listening.close()
    }

    #if os(Linux)
        @Test("the public port's sockets are reported only once a connection's first bytes are in, and still serve it")
        func acceptedOnceDataArrives() async throws {
            let loop = MultiThreadedEventLoopGroup.singleton.next()
            let listening = try await ServerBootstrap(group: loop, childGroup: loop)
                .acceptingOnceDataArrives()
                .serverChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            AcceptedConnections(setUp: { child in try child.pipeline.syncOperations.addHandler(Echo()) }))
                    }
                }
                .bind(host: "127.0.0.1", port: 0).get()
            // The kernel keeps the wait as a number of retransmissions and answers it in seconds again.
            let deferred = try await listening.getOption(ServerBootstrap.deferAccept).get()
            #expect(deferred >= 1)
            let port = try #require(listening.localAddress?.port)
            #expect(try await Self.echo(port, "first bytes", on: loop) == "first bytes")
            try await listening.close()
        }
    #endif
}
