import Hummingbird
import HummingbirdCore
import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle

/// Hummingbird's application, run with ``PublicListener`` on the public port instead of
/// Hummingbird's server: the same router, services and start-up steps, and the same request
/// handling (a request ID in the log metadata, an unexpected error answered 500, `Date` on every
/// response). Hummingbird's testing framework runs the application's own server, which sets up
/// every connection alike, but hands each one to a task.
struct ListeningApplication: ApplicationProtocol {
    typealias Responder = RouterResponder<LinkDomainRequestContext>

    let base: Application<Responder>
    let host: String
    let port: Int
    /// The public port's connections, given the request handling.
    let child: @Sendable (@escaping HTTPChannelHandler.Responder) throws -> PublicChannel

    var responder: Responder { base.responder }
    var server: HTTPServerBuilder { base.server }
    var eventLoopGroup: any EventLoopGroup { base.eventLoopGroup }
    var configuration: ApplicationConfiguration { base.configuration }
    var logger: Logger { base.logger }
    var services: [any Service] { base.services }
    var processesRunBeforeServerStart: [@Sendable () async throws -> Void] { base.processesRunBeforeServerStart }
    func onServerRunning(_ channel: any Channel) async { await base.onServerRunning(channel) }

    func run() async throws {
        let responder = self.responder
        let logger = self.logger
        let respond: HTTPChannelHandler.Responder = { request, writer, channel in
            var requestLogger = logger
            requestLogger[metadataKey: "hb.request.id"] = .stringConvertible(RequestID())
            let context = LinkDomainRequestContext(source: .init(channel: channel, logger: requestLogger))
            var response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch let error as HTTPParserError {
                throw error
            } catch {
                requestLogger.debug("Unrecognised Error", metadata: ["error.type": "\(error)"])
                response = Response(status: .internalServerError, body: .init())
            }
            response.headers[.date] = HTTPDate.now
            do {
                try await writer.write(response: response.head, body: response.body)
            } catch is HTTPParserError {
                // Rethrown as it is, a parser error would be answered a second time.
                throw ResponseWriteFailed()
            }
        }
        let listener = StartingListener(
            steps: processesRunBeforeServerStart,
            listener: PublicListener(
                host: host, port: port, child: try child(respond),
                eventLoopGroup: eventLoopGroup, onServerRunning: { await base.onServerRunning($0) }, logger: logger))
        try await ServiceGroup(configuration: .init(services: services + [listener], logger: logger)).run()
    }
}

/// The response could not be written: the connection ends without another answer.
private struct ResponseWriteFailed: Error {}

/// The start-up steps (migrations, warm caches), then the listener.
private struct StartingListener: Service {
    let steps: [@Sendable () async throws -> Void]
    let listener: PublicListener

    func run() async throws {
        for step in steps { try await step() }
        try await listener.run()
    }
}
