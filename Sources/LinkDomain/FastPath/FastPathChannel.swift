import HummingbirdCore
import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// A connection set up on its event loop that needs a task only once a request reaches the router.
protocol DeferredChildChannel: ServerChildChannel {
    /// Calls `body` once `value`'s connection needs ``ServerChildChannel/handle(value:logger:)``
    /// (never, when the event loop answers all of it).
    func whenItNeedsATask(_ value: Value, _ body: @escaping @Sendable () -> Void)
}

/// Plain HTTP/1.1, answered by ``RawRequestHandler`` alone until a request needs the router.
///
/// Most connections to a link domain are one click: one or two requests the event loop answers,
/// then a close. Installing NIO's HTTP decoder and encoder, the conversions to HTTP types, the
/// idle and immediate handlers and the async channel for every connection cost more than its
/// answers (BENCHMARKS.md, "A new connection per request"). So a new connection starts with the
/// byte reader and the idle clock only; the rest of the pipeline (``RouterHandOff``) is installed
/// behind it when it first passes a request on, and only then does the connection's task serve the router.
struct FastPathChannel: DeferredChildChannel {
    struct Value: ServerChildChannelValue {
        let channel: any Channel
        /// The router's half once a request needs it; nil when the connection ends without one.
        let routerHalf: EventLoopFuture<HTTP1Channel.Value?>
    }

    let responder: HTTPChannelHandler.Responder
    let rawResponder: RawResponder
    let immediate: ImmediateResponder
    let finisher: ResponseFinisher
    let idleTimeout: TimeAmount
    /// Behind TLS: the requests' scheme is https.
    var secure = false
    let logger: Logger

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let ledger = ConnectionLedger()
            let handOff = RouterHandOff(
                channel: channel, ledger: ledger, idleTimeout: idleTimeout, immediate: immediate, finisher: finisher, secure: secure,
                logger: self.logger)
            try channel.pipeline.syncOperations.addHandler(
                RawRequestHandler(responder: rawResponder, ledger: ledger, idleTimeout: idleTimeout, handOff: handOff, logger: self.logger))
            return Value(channel: channel, routerHalf: handOff.installed)
        }
    }

    func handle(value: Value, logger: Logger) async {
        guard let routerHalf = try? await value.routerHalf.get() else { return }
        await HTTP1Channel(responder: responder).handle(value: routerHalf, logger: logger)
    }

    func whenItNeedsATask(_ value: Value, _ body: @escaping @Sendable () -> Void) {
        value.routerHalf.whenSuccess { if $0 != nil { body() } }
    }
}

/// The router's half of a plain connection's pipeline, installed once, behind
/// ``RawRequestHandler``, on the event loop: what Hummingbird's HTTP/1.1 channel installs (NIO's
/// decoder and encoder, the conversion to HTTP types, the connection's state and its async
/// channel), with the idle clock's activity marks and the event-loop answers of decoded heads.
final class RouterHandOff {
    private let channel: any Channel
    private let ledger: ConnectionLedger
    private let idleTimeout: TimeAmount
    private let immediate: ImmediateResponder
    private let finisher: ResponseFinisher
    private let secure: Bool
    private let logger: Logger
    private let promise: EventLoopPromise<HTTP1Channel.Value?>
    private var isSettled = false
    private(set) var isInstalled = false

    init(
        channel: any Channel, ledger: ConnectionLedger, idleTimeout: TimeAmount, immediate: ImmediateResponder, finisher: ResponseFinisher,
        secure: Bool, logger: Logger
    ) {
        self.secure = secure
        self.channel = channel
        self.ledger = ledger
        self.idleTimeout = idleTimeout
        self.immediate = immediate
        self.finisher = finisher
        self.logger = logger
        promise = channel.eventLoop.makePromise()
    }

    /// Completed when the router's half is installed, or with nil when the connection ends first.
    var installed: EventLoopFuture<HTTP1Channel.Value?> { promise.futureResult }

    /// Installs the router's half now, if it is not yet; false if it cannot be (the connection then closes).
    func install() -> Bool {
        guard !isSettled else { return isInstalled }
        isSettled = true
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
            try operations.addHandler(HTTP1ToHTTPServerCodec(secure: secure))
            try operations.addHandler(ConnectionTimeoutHandler(timeout: idleTimeout, ledger: ledger))
            try operations.addHandler(ImmediateResponseHandler(responder: immediate, finisher: finisher, logger: logger))
            try operations.addHandler(HTTPConnectionStateHandler(logger: logger))
            let value = try HTTP1Channel.Value(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
            isInstalled = true
            promise.succeed(value)
        } catch {
            logger.error("could not install the HTTP handlers: \(error)")
            promise.succeed(nil)
        }
        return isInstalled
    }

    /// The connection ended without needing the router.
    func notNeeded() {
        guard !isSettled else { return }
        isSettled = true
        promise.succeed(nil)
    }
}
