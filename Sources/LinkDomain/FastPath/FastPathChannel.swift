import HummingbirdCore
import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// Called on the event loop, at most once per connection or HTTP/2 stream, when the router must
/// serve it: with the request parts' async channel, which then gets a task (``PublicListener``).
typealias NeedsATask = @Sendable (HTTP1Channel.Value) -> Void

/// Plain HTTP/1.1, answered by ``RawRequestHandler`` alone until a request needs the router.
///
/// Most connections to a link domain are one click: one or two requests the event loop answers,
/// then a close. Installing NIO's HTTP decoder and encoder, the conversions to HTTP types, the
/// idle and immediate handlers and the async channel for every connection cost more than its
/// answers (BENCHMARKS.md, "A new connection per request"). So a new connection starts with the
/// byte reader and the idle clock only; the rest of the pipeline (``RouterHandOff``) is installed
/// behind it when it first passes a request on, and only then does the connection get a task.
///
/// A class: every connection's handlers hold this one instance rather than copies of its parts.
final class FastPathChannel: Sendable {
    let responder: HTTPChannelHandler.Responder
    let rawResponder: RawResponder
    let immediate: ImmediateResponder
    let finisher: ResponseFinisher
    /// The event loop's answers to heads NIO decoded (HTTP/1.1 after the byte reader, HTTP/2).
    let decodedHeads: DecodedHeadAnswers
    /// HTTP/2's answers as header blocks, with the security headers made once.
    let headerBlocks: ResponseHeaderBlocks
    let idleTimeout: TimeAmount
    /// Behind TLS: the requests' scheme is https.
    let secure: Bool
    let logger: Logger

    init(
        responder: @escaping HTTPChannelHandler.Responder, immediate: ImmediateResponder, finisher: ResponseFinisher, idleTimeout: TimeAmount,
        secure: Bool, logger: Logger
    ) {
        self.responder = responder
        self.rawResponder = RawResponder(immediate: immediate, finisher: finisher)
        self.immediate = immediate
        self.finisher = finisher
        self.decodedHeads = DecodedHeadAnswers(responder: immediate, finisher: finisher, logger: logger)
        self.headerBlocks = ResponseHeaderBlocks(securityHeaders: finisher.securityHeaders)
        self.idleTimeout = idleTimeout
        self.secure = secure
        self.logger = logger
    }

    /// Installs the byte reader on `channel`, on its event loop.
    func setUp(_ channel: any Channel, needsATask: @escaping NeedsATask) throws {
        let ledger = ConnectionLedger()
        let handOff = RouterHandOff(channel: channel, ledger: ledger, settings: self, needsATask: needsATask)
        try channel.pipeline.syncOperations.addHandler(
            RawRequestHandler(
                responder: rawResponder, ledger: ledger, idleTimeout: idleTimeout, handOff: handOff, writesToSocket: !secure, logger: logger),
            name: "request")
    }

    func handle(_ routerHalf: HTTP1Channel.Value, logger: Logger) async {
        await HTTP1Channel(responder: responder).handle(value: routerHalf, logger: logger)
    }
}

/// The router's half of a plain connection's pipeline, installed once, behind
/// ``RawRequestHandler``, on the event loop: what Hummingbird's HTTP/1.1 channel installs (NIO's
/// decoder and encoder, the conversion to HTTP types, the connection's state and its async
/// channel), with the idle clock's activity marks and the event-loop answers of decoded heads.
final class RouterHandOff {
    private let channel: any Channel
    private let ledger: ConnectionLedger
    private let settings: FastPathChannel
    private let needsATask: NeedsATask
    private(set) var isInstalled = false
    private var failed = false

    init(channel: any Channel, ledger: ConnectionLedger, settings: FastPathChannel, needsATask: @escaping NeedsATask) {
        self.channel = channel
        self.ledger = ledger
        self.settings = settings
        self.needsATask = needsATask
    }

    /// Installs the router's half now, if it is not yet; false if it cannot be (the connection then closes).
    func install() -> Bool {
        guard !isInstalled, !failed else { return isInstalled }
        do {
            let operations = channel.pipeline.syncOperations
            // Hummingbird's limits (HTTP1Channel.Configuration's decoder defaults).
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = 80 * 1024
            limits.maxHeaderListSize = 80 * 1024
            limits.maxHeaderFieldCount = 1000
            try operations.configureHTTPServerPipeline(
                withPipeliningAssistance: false, withErrorHandling: false, withOutboundHeaderValidation: false,
                withEncoderConfiguration: .init(), withDecoderLimitConfiguration: limits)
            try operations.addHandler(ConnectionCloseHandler())
            try operations.addHandler(HTTP1ToHTTPServerCodec(secure: settings.secure))
            try operations.addHandler(ConnectionTimeoutHandler(timeout: settings.idleTimeout, ledger: ledger))
            try operations.addHandler(ImmediateResponseHandler(answers: settings.decodedHeads))
            try operations.addHandler(HTTPConnectionStateHandler(logger: settings.logger))
            let value = try HTTP1Channel.Value(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
            isInstalled = true
            needsATask(value)
        } catch {
            settings.logger.error("could not install the HTTP handlers: \(error)")
            failed = true
        }
        return isInstalled
    }
}
