import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@testable import LinkDomain

/// The listening socket's own handler sets each connection up; NIO still registers it.
@Suite("Accepting connections", .timeLimit(.minutes(1)))
struct AcceptedConnectionsTests {
    /// Writes back what it reads, and counts the requests to finish (leaving the close to the client).
    final class Echo: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let askedToFinish: NIOLockedValueBox<Int>?

        init(askedToFinish: NIOLockedValueBox<Int>? = nil) {
            self.askedToFinish = askedToFinish
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            context.writeAndFlush(data, promise: nil)
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if event is ChannelShouldQuiesceEvent { askedToFinish?.withLockedValue { $0 += 1 } }
            context.fireUserInboundEventTriggered(event)
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

    /// What the server wrote back to `text`, on a connection then closed.
    static func echo(_ port: Int, _ text: String, on loop: any EventLoop) async throws -> String {
        let (client, answer) = try await connect(port, text, on: loop)
        try await client.close()
        return answer
    }

    /// A connection that sent `text`, and what the server wrote back first.
    static func connect(_ port: Int, _ text: String, on loop: any EventLoop) async throws -> (any Channel, String) {
        let promise = loop.makePromise(of: String.self)
        let client = try await ClientBootstrap(group: loop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(FirstRead(promise: promise)) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        try await client.writeAndFlush(ByteBuffer(string: text))
        return (client, try await promise.futureResult.get())
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

    /// A listener whose connections echo and count the requests to finish, with its handler.
    static func finishingListener(
        on loop: any EventLoop, asked: NIOLockedValueBox<Int>, accepted: NIOLockedValueBox<[any Channel]>
    ) async throws -> (any Channel, NIOLoopBoundBox<AcceptedConnections?>) {
        let handler = NIOLoopBoundBox.makeEmptyBox(valueType: AcceptedConnections.self, eventLoop: loop)
        let listening = try await ServerBootstrap(group: loop, childGroup: loop)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let accepting = AcceptedConnections(setUp: { child in
                        accepted.withLockedValue { $0.append(child) }
                        try child.pipeline.syncOperations.addHandler(Echo(askedToFinish: asked))
                    })
                    try channel.pipeline.syncOperations.addHandler(accepting)
                    handler.value = accepting
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return (listening, handler)
    }

    @Test("a connection leaves the listener's table once it has closed")
    func closedConnectionsLeave() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let accepted = NIOLockedValueBox<[any Channel]>([])
        let (listening, handler) = try await Self.finishingListener(on: loop, asked: NIOLockedValueBox(0), accepted: accepted)
        let port = try #require(listening.localAddress?.port)
        for text in ["one", "two", "three"] { #expect(try await Self.echo(port, text, on: loop) == text) }
        // The server's side closes when it reads the client's close; the table's callback was hung first.
        for child in accepted.withLockedValue({ $0 }) { try await child.closeFuture.get() }
        #expect(try await loop.submit { handler.value?.openCount }.get() == 0)
        try await listening.close()
    }

    @Test("finishing stops accepting, asks each open connection to finish, and completes when the last has closed")
    func finishWaitsForEachConnection() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let asked = NIOLockedValueBox(0)
        let accepted = NIOLockedValueBox<[any Channel]>([])
        let (listening, handler) = try await Self.finishingListener(on: loop, asked: asked, accepted: accepted)
        let port = try #require(listening.localAddress?.port)
        var clients: [any Channel] = []
        for text in ["first", "second"] {
            let (client, answer) = try await Self.connect(port, text, on: loop)
            #expect(answer == text)
            clients.append(client)
        }
        let finished = loop.makePromise(of: Void.self)
        let done = NIOLockedValueBox(false)
        finished.futureResult.whenComplete { _ in done.withLockedValue { $0 = true } }
        try await loop.submit {
            try #require(handler.value).finish(closing: listening, promise: finished)
        }.get()
        try await listening.closeFuture.get()
        await #expect(throws: (any Error).self) { try await ClientBootstrap(group: loop).connect(host: "127.0.0.1", port: port).get() }
        // Each was asked (a task queued on the loop, run before this one), and the shutdown waits for both.
        try await loop.submit {}.get()
        #expect(asked.withLockedValue { $0 } == 2)
        #expect(done.withLockedValue { $0 } == false)
        try await clients[0].close()
        try await accepted.withLockedValue({ $0 })[0].closeFuture.get()
        try await loop.submit {}.get()
        #expect(done.withLockedValue { $0 } == false)
        try await clients[1].close()
        try await finished.futureResult.get()
        #expect(try await loop.submit { handler.value?.openCount }.get() == 0)
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
