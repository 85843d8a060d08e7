import HTTPTypes
import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers on the event loop what ``ImmediateResponder`` can answer from the request head alone,
/// before the request enters the router: the association files, the stylesheet, and every link
/// whose answer needs no backend. These are most of a link domain's traffic, and the router's task
/// per request cost three quarters of their time (BENCHMARKS.md). Everything else passes through.
/// On plain HTTP/1.1, ``RawRequestHandler`` has tried each request from its bytes already; only
/// the requests it leaves to NIO's decoder wholesale (after one it is unsure of) are tried here.
///
/// ``ConnectionStateMachine`` decides what to do with each part; this handler only reads
/// parts and writes answers. ``ResponseFinisher`` gives them the same headers, metrics and log
/// line as the router's.
final class ImmediateResponseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private struct Answer {
        let response: ImmediateResponse
        let request: HTTPRequest
        /// The route pattern, as metrics count it.
        let route: String
        let path: String
        let start: ContinuousClock.Instant
    }

    let responder: ImmediateResponder
    let finisher: ResponseFinisher
    let logger: Logger
    /// The connection's (the idle timeout's, which comes first in the pipeline), or its own.
    private(set) var ledger = ConnectionLedger()
    /// The answer to the request being read, written when its end arrives.
    private var pending: Answer?
    /// The refusal that closes the connection, while it waits for earlier responses.
    private var refusal: Answer?

    init(responder: ImmediateResponder, finisher: ResponseFinisher, logger: Logger) {
        self.responder = responder
        self.finisher = finisher
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if let timeout = try? context.pipeline.syncOperations.handler(type: ConnectionTimeoutHandler.self) { ledger = timeout.ledger }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let action: ConnectionStateMachine.Action
        switch unwrapInboundIn(data) {
        case .head(let request):
            if UpgradeRefusal.applies(to: request) {
                refusal = makeRefusal(request, context: context)
                action = ledger.requests.refuse()
            } else {
                action = ledger.requests.head {
                    pending = answer(request, peer: { context.channel.remoteAddress?.ipAddress })
                    return pending != nil
                }
            }
        case .body: action = ledger.requests.body()
        case .end: action = ledger.requests.end()
        }
        perform(action, data: data, context: context)
    }

    private func perform(_ action: ConnectionStateMachine.Action, data: NIOAny?, context: ChannelHandlerContext) {
        switch action {
        case .forward: if let data { context.fireChannelRead(data) }
        case .drop: break
        case .write:
            if let answer = pending { write(answer, context: context, promise: nil) }
            pending = nil
        case .writeRefusalAndClose:
            guard let answer = refusal else { return }
            refusal = nil
            // Closed once the refusal is out; a client that never reads it meets the idle timeout.
            let written = context.eventLoop.makePromise(of: Void.self)
            let channel = context.channel
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            write(answer, context: context, promise: written)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else { return context.write(data, promise: promise) }
        context.write(data, promise: promise)
        if let action = ledger.responseEnded() { perform(action, data: nil, context: context) }
    }

    /// After a refusal nothing more is read: the bytes a client sends after an Upgrade or CONNECT
    /// would otherwise pile up in the HTTP decoder, which stops parsing there (unbounded memory).
    func read(context: ChannelHandlerContext) {
        if !ledger.requests.isClosing { context.read() }
    }

    private func makeRefusal(_ request: HTTPRequest, context: ChannelHandlerContext) -> Answer {
        // HTTP/2 has no Connection field and no upgrades; a CONNECT stream is refused alone.
        let response = UpgradeRefusal.response(to: request, closing: isHTTP1(context))
        return Answer(
            response: response, request: request, route: "refused", path: request.method == .connect ? "-" : request.path ?? "-",
            start: .now)
    }

    private func isHTTP1(_ context: ChannelHandlerContext) -> Bool {
        (try? context.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)) != nil
    }

    private func answer(_ request: HTTPRequest, peer: () -> String?) -> Answer? {
        guard request.method == .get || request.method == .head, let target = request.path,
            AdmissionPolicy.mayAnswerOnEventLoop(
                targetBytes: target.utf8.count, headerBytes: AdmissionPolicy.headerBytes(request.headerFields),
                keepsConnection: AdmissionPolicy.keepsConnection(request.headerFields))
        else { return nil }
        // A host development does not answer gets the router's 421.
        if let hosts = responder.developmentHosts, !hosts.allows(request.authority) { return nil }
        let start = ContinuousClock.now
        let mark = target.utf8.firstIndex(of: UInt8(ascii: "?"))
        let path = mark.map { target[..<$0] } ?? target[...]
        guard let (kind, route) = responder.match(path),
            let answer = responder.answer(
                to: kind, method: request.method, path: path, query: mark.map { target[target.index(after: $0)...] },
                headers: ImmediateResponder.RequestHeaders(request.headerFields, authority: request.authority), peer: peer,
                logger: logger)
        else { return nil }
        return Answer(
            response: answer.response, request: request, route: route,
            path: String(path), start: start)
    }

    private func write(_ answer: Answer, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        let response = answer.response
        var headers = response.headers
        if headers[.contentLength] == nil, response.status != .notModified { headers[.contentLength] = String(response.body?.readableBytes ?? 0) }
        headers[.date] = HTTPDate.now
        finisher.finish(
            &headers, status: response.status, method: answer.request.method, path: answer.path, route: answer.route,
            peer: context.channel.remoteAddress?.ipAddress, requestHeaders: answer.request.headerFields, since: answer.start,
            logger: logger)
        context.write(wrapOutboundOut(.head(HTTPResponse(status: response.status, headerFields: headers))), promise: nil)
        if let body = response.body, answer.request.method != .head { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: promise)
    }
}
