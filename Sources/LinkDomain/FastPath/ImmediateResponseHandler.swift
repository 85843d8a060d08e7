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

    let answers: DecodedHeadAnswers
    /// The connection's (the idle timeout's, which comes first in the pipeline), or its own.
    private(set) var ledger = ConnectionLedger()
    /// The answer to the request being read, written when its end arrives.
    private var pending: DecodedHeadAnswer?
    /// The refusal that closes the connection, while it waits for earlier responses.
    private var refusal: DecodedHeadAnswer?

    init(answers: DecodedHeadAnswers) {
        self.answers = answers
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
                    pending = answers.answer(request, peer: { context.channel.remoteAddress?.peerText })
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

    private func makeRefusal(_ request: HTTPRequest, context: ChannelHandlerContext) -> DecodedHeadAnswer {
        // HTTP/2 has no Connection field and no upgrades; a CONNECT stream is refused alone.
        let response = UpgradeRefusal.response(to: request, closing: isHTTP1(context))
        return DecodedHeadAnswer(
            response: response, request: request, route: "refused", path: request.method == .connect ? "-" : request.path ?? "-",
            start: .now)
    }

    private func isHTTP1(_ context: ChannelHandlerContext) -> Bool {
        (try? context.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)) != nil
    }

    private func write(_ answer: DecodedHeadAnswer, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        let head = answers.finishedHead(of: answer, peer: context.channel.remoteAddress?.peerText)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body = answer.response.body, answer.request.method != .head { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: promise)
    }
}
