import Hummingbird
import HummingbirdCore
import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The public port. Hummingbird's server hands every accepted connection to a task of its own,
/// and that hop to the task's thread and back cost more than a click's whole answer (BENCHMARKS.md,
/// "A new connection per request"). Here each connection is set up on its event loop, where most
/// are answered and closed; only a connection that reaches the router is handed to a task, in
/// this service's task group. A graceful shutdown stops accepting, asks every connection to
/// finish (Hummingbird's handlers close once the response in flight is out), and returns when
/// the last has closed and its task ended.
///
/// Each event loop accepts on a socket of its own (`SO_REUSEPORT`, the kernel spreading new
/// connections among them) and keeps what it accepts: one listening socket would accept on one
/// loop and hand every other connection across threads, a wake-up per connection.
struct PublicListener: Service {
    let host: String
    let port: Int
    let child: PublicChannel
    let eventLoopGroup: any EventLoopGroup
    let onServerRunning: @Sendable (any Channel) async -> Void
    let logger: Logger

    /// One event loop's listening socket and what it accepted.
    private struct Listening {
        let channel: any Channel
        let connections: NIOLoopBoundBox<AcceptedConnections?>
    }

    func run() async throws {
        let (routed, continuation) = AsyncStream.makeStream(of: HTTP1Channel.Value.self)
        let listening = try await bind { continuation.yield($0) }
        logger.info("Server started and listening on \(host):\(listening[0].channel.localAddress?.port ?? port)")
        await withGracefulShutdownHandler {
            await onServerRunning(listening[0].channel)
            await withDiscardingTaskGroup { group in
                for await value in routed {
                    group.addTask { await child.handle(value, logger: logger) }
                }
            }
        } onGracefulShutdown: {
            let closed = listening.map { listener in
                let promise = listener.channel.eventLoop.makePromise(of: Void.self)
                listener.connections.eventLoop.execute {
                    guard let connections = listener.connections.value else { return promise.succeed() }
                    connections.finish(closing: listener.channel, promise: promise)
                }
                return promise.futureResult
            }
            EventLoopFuture.andAllComplete(closed, on: listening[0].channel.eventLoop).whenComplete { _ in continuation.finish() }
        }
    }

    /// A listening socket on every event loop, all on one port. The port is first bound alone, so
    /// that one another process holds is refused as before rather than shared with it, and so
    /// that port 0 picks the port every loop then binds.
    private func bind(needsATask: @escaping NeedsATask) async throws -> [Listening] {
        let loops = Array(eventLoopGroup.makeIterator())
        // The probe accepts nothing (no read is ever asked of it): a client that connects in the
        // moment it listens is reset when it closes, and tries again, instead of being accepted
        // into a channel nobody serves.
        let probe = try await ServerBootstrap(group: loops[0])
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(ChannelOptions.autoRead, value: false)
            .serverChannelOption(ChannelOptions.backlog, value: 1)
            .bind(host: host, port: port).get()
        let boundPort = probe.localAddress?.port ?? port
        try await probe.close()
        var listening: [Listening] = []
        do {
            for loop in loops {
                let connections = NIOLoopBoundBox.makeEmptyBox(valueType: AcceptedConnections.self, eventLoop: loop)
                let setUp: @Sendable (any Channel) throws -> Void = { [child] channel in try child.setUp(channel, needsATask: needsATask) }
                let channel = try await ServerBootstrap(group: loop, childGroup: loop)
                    .serverChannelOption(ChannelOptions.backlog, value: 1024)
                    .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                    .serverChannelOption(ChannelOptions.socketOption(.init(rawValue: SO_REUSEPORT)), value: 1)
                    .acceptingOnceDataArrives()
                    .serverChannelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            let accepting = AcceptedConnections(setUp: setUp)
                            try channel.pipeline.syncOperations.addHandler(accepting, name: "accept")
                            connections.value = accepting
                        }
                    }
                    .bind(host: host, port: boundPort).get()
                listening.append(Listening(channel: channel, connections: connections))
            }
        } catch {
            for listener in listening { try? await listener.channel.close() }
            throw error
        }
        return listening
    }
}

extension ServerBootstrap {
    /// On Linux, the listening socket reports a connection only once its first bytes have arrived
    /// (`TCP_DEFER_ACCEPT`). An HTTP or TLS client speaks first, so the loop is not woken for a
    /// connection it cannot read from yet: 0.20 context switches a connection fell to 0.12
    /// (BENCHMARKS.md, "Accepted once the request is in"). A connection that sends nothing is
    /// still accepted, about a second later (the kernel's SYN-ACK retransmission and the client's
    /// answer to it), and the idle clock then closes it as before.
    func acceptingOnceDataArrives() -> ServerBootstrap {
        #if os(Linux)
            serverChannelOption(Self.deferAccept, value: Self.deferAcceptSeconds)
        #else
            self
        #endif
    }

    #if os(Linux)
        static let deferAccept = ChannelOptions.Types.SocketOption(level: .tcp, name: .init(rawValue: TCP_DEFER_ACCEPT))
        /// What nginx's `listen … deferred` sets: the shortest wait, one SYN-ACK retransmission.
        static let deferAcceptSeconds: SocketOptionValue = 1
    #endif
}

/// Sets up each connection its listening socket accepts, on the spot, and hands it to the
/// listening channel, which registers it with the loop as NIO always does. The server bootstrap's
/// own accept handler, behind this one, would first pass every connection through a chain of
/// futures (the child options, the initializer, then firing it on): about 15,000 instructions of
/// a connection answered in 96,000 (BENCHMARKS.md, "Accepted on the spot").
///
/// The hand-over is the one the pipeline's tail makes for a read no handler took (the channel
/// core's `channelRead0`): the listening channel queues the registration on the connection's
/// loop, and a connection the selector refuses (`epoll_ctl` out of memory or watches) is closed
/// alone. NIO's registration of an already connected socket from outside would be cheaper still,
/// but it traps on that refusal.
///
/// It also keeps what it accepted, so that a graceful shutdown can ask every open connection to
/// finish (``finish(closing:promise:)``). NIOExtras' quiescing helper did that in a handler of its
/// own, in front of this one, which cast each connection out of the read a second time: about
/// 1,200 instructions a connection more (BENCHMARKS.md, "One handler accepts"). A connection
/// leaves the table as it closes: keeping the closed a while to drop them together cost more, as
/// their memory then came back to the allocator in bursts, too late for the next connections.
final class AcceptedConnections: ChannelInboundHandler {
    typealias InboundIn = any Channel

    let setUp: @Sendable (any Channel) throws -> Void
    /// Every connection accepted and not closed yet.
    private var open: [ObjectIdentifier: any Channel] = [:]
    private var finishing = Finishing.serving

    private enum Finishing {
        case serving
        /// Waiting for the connections open when the shutdown began, and any accepted after, to close.
        case waiting(EventLoopPromise<Void>)
        case finished
    }

    init(setUp: @escaping @Sendable (any Channel) throws -> Void) {
        self.setUp = setUp
    }

    /// The connections open now.
    var openCount: Int { open.count }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let accepted = unwrapInboundIn(data)
        if case .finished = finishing {
            // Accepted as the listening socket closed, after the last connection it waited for.
            accepted.close(promise: nil)
            return
        }
        guard accepted.eventLoop === context.eventLoop else {
            // Never with a listener per loop. The registration is a task on the connection's
            // loop, so a set-up queued there first comes first.
            let setUp = setUp
            accepted.eventLoop.execute {
                do { try setUp(accepted) } catch { accepted.close(promise: nil) }
            }
            context.channel._channelCore.channelRead0(data)
            keep(accepted, loop: context.eventLoop)
            return
        }
        do {
            try setUp(accepted)
        } catch {
            accepted.close(promise: nil)
            context.fireErrorCaught(error)
            return
        }
        context.channel._channelCore.channelRead0(data)
        keep(accepted, loop: context.eventLoop)
    }

    /// Keeps `accepted` until it closes; during a shutdown, asks it to finish at once.
    private func keep(_ accepted: any Channel, loop: any EventLoop) {
        let key = ObjectIdentifier(accepted)
        open[key] = accepted
        let this = NIOLoopBound(self, eventLoop: loop)
        accepted.closeFuture.hop(to: loop).whenComplete { _ in this.value.closed(key) }
        if case .waiting = finishing { askToFinish(accepted) }
    }

    private func closed(_ key: ObjectIdentifier) {
        open[key] = nil
        finishIfNoneOpen()
    }

    /// During a shutdown, completes it once no connection is open.
    private func finishIfNoneOpen() {
        guard case .waiting(let promise) = finishing, open.isEmpty else { return }
        finishing = .finished
        promise.succeed()
    }

    /// Stops accepting (closes `listener`), asks every open connection to finish, and completes
    /// `promise` once the last has closed. On the listener's loop.
    func finish(closing listener: any Channel, promise: EventLoopPromise<Void>) {
        switch finishing {
        case .waiting(let first):
            first.futureResult.cascade(to: promise)
        case .finished:
            promise.succeed()
        case .serving:
            finishing = .waiting(promise)
            // Closed already (a fatal accept error) is closed all the same: the connections are still waited for.
            listener.close(promise: nil)
            for channel in open.values { askToFinish(channel) }
            finishIfNoneOpen()
        }
    }

    /// Asks `channel` to finish its requests and close: queued on its loop, so after its registration.
    private func askToFinish(_ channel: any Channel) {
        channel.eventLoop.execute { channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent()) }
    }
}
