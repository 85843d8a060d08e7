import Hummingbird
import HummingbirdCore
import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore
import NIOExtras
import NIOPosix
import ServiceLifecycle

/// The public port. Hummingbird's server hands every accepted connection to a task of its own,
/// and that hop to the task's thread and back cost more than a click's whole answer (BENCHMARKS.md,
/// "A new connection per request"). Here each connection is set up on its event loop, where most
/// are answered and closed; only a connection that reaches the router is handed to a task, in
/// this service's task group. A graceful shutdown stops accepting, asks every connection to
/// finish (Hummingbird's handlers close once the response in flight is out), and returns when
/// the last has closed and its task ended.
struct PublicListener<Child: DeferredChildChannel>: Service {
    let host: String
    let port: Int
    let child: Child
    let eventLoopGroup: any EventLoopGroup
    let onServerRunning: @Sendable (any Channel) async -> Void
    let logger: Logger

    func run() async throws {
        let (routed, continuation) = AsyncStream.makeStream(of: Child.Value.self)
        let quiescing = ServerQuiescingHelper(group: eventLoopGroup)
        let serverChannel = try await ServerBootstrap(group: eventLoopGroup)
            .serverChannelOption(ChannelOptions.backlog, value: 1024)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(quiescing.makeServerChannelHandler(channel: channel))
                }
            }
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { [child, logger] channel in
                child.setup(channel: channel, logger: logger).map { value in
                    child.whenItNeedsATask(value) { continuation.yield(value) }
                }
            }
            .bind(host: host, port: port).get()
        logger.info("Server started and listening on \(host):\(serverChannel.localAddress?.port ?? port)")
        await withGracefulShutdownHandler {
            await onServerRunning(serverChannel)
            await withDiscardingTaskGroup { group in
                for await value in routed {
                    group.addTask { await child.handle(value: value, logger: logger) }
                }
            }
        } onGracefulShutdown: {
            let closed = serverChannel.eventLoop.makePromise(of: Void.self)
            closed.futureResult.whenComplete { _ in continuation.finish() }
            quiescing.initiateShutdown(promise: closed)
        }
    }
}
