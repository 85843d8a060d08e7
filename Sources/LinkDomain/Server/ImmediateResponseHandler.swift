import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// Answers on the event loop what ``ImmediateResponder`` can answer from the request head alone,
/// before the request enters the router: the association files, the stylesheet, and links that
/// redirect straight on. These are most of a link domain's traffic, and the router's task per
/// request cost three quarters of their time (BENCHMARKS.md). Everything else passes through.
///
/// ``ImmediateResponseStateMachine`` decides what to do with each part; this handler only reads
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

    private static let close = MarkerScanner(["close"])
    let responder: ImmediateResponder
    let finisher: ResponseFinisher
    let logger: Logger
    private var state = ImmediateResponseStateMachine<Answer>()

    init(responder: ImmediateResponder, finisher: ResponseFinisher, logger: Logger) {
        self.responder = responder
        self.finisher = finisher
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let action = switch unwrapInboundIn(data) {
        case .head(let request): UpgradeRefusal.applies(to: request) ? state.refuse(refusal(request, context: context)) : state.head { answer(request) }
        case .body: state.body()
        case .end: state.end()
        }
        perform(action, data: data, context: context)
    }

    private func perform(_ action: ImmediateResponseStateMachine<Answer>.Action, data: NIOAny?, context: ChannelHandlerContext) {
        switch action {
        case .forward: if let data { context.fireChannelRead(data) }
        case .drop: break
        case .write(let answer): write(answer, context: context, promise: nil)
        case .writeAndClose(let answer):
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
        if let action = state.responseEnded() { perform(action, data: nil, context: context) }
    }

    /// After a refusal nothing more is read: the bytes a client sends after an Upgrade or CONNECT
    /// would otherwise pile up in the HTTP decoder, which stops parsing there (unbounded memory).
    func read(context: ChannelHandlerContext) {
        if !state.isClosing { context.read() }
    }

    private func refusal(_ request: HTTPRequest, context: ChannelHandlerContext) -> Answer {
        // HTTP/2 has no Connection field and no upgrades; a CONNECT stream is refused alone.
        let response = UpgradeRefusal.response(to: request, closing: isHTTP1(context))
        return Answer(response: response, request: request, route: "refused", path: request.method == .connect ? "-" : request.path ?? "-",
                      start: .now)
    }

    private func isHTTP1(_ context: ChannelHandlerContext) -> Bool {
        (try? context.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)) != nil
    }

    private func answer(_ request: HTTPRequest) -> Answer? {
        guard request.method == .get || request.method == .head, let target = request.path,
              // Limits, and closing the connection, are the router's to answer.
              target.utf8.count <= AbuseLimitsMiddleware.maximumURLLength,
              !(request.headerFields[.connection].map { Self.close.scan($0) != 0 } ?? false)
        else { return nil }
        let start = ContinuousClock.now
        let mark = target.utf8.firstIndex(of: UInt8(ascii: "?"))
        let path = mark.map { target[..<$0] } ?? target[...]
        guard let (kind, route) = responder.match(path),
              AbuseLimitsMiddleware.headerBytes(request.headerFields) <= AbuseLimitsMiddleware.maximumHeaderBytes,
              let response = responder.respond(to: kind, method: request.method, path: path, query: mark.map { target[target.index(after: $0)...] },
                                               headers: ImmediateResponder.RequestHeaders(request.headerFields))
        else { return nil }
        return Answer(response: response, request: request, route: route,
                      path: String(path), start: start)
    }

    private func write(_ answer: Answer, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        let response = answer.response
        var headers = response.headers
        if headers[.contentLength] == nil, response.status != .notModified { headers[.contentLength] = String(response.body?.readableBytes ?? 0) }
        headers[.date] = HTTPDate.now
        finisher.finish(&headers, status: response.status, method: answer.request.method, path: answer.path, route: answer.route,
                        peer: context.channel.remoteAddress?.ipAddress, requestHeaders: answer.request.headerFields, since: answer.start,
                        logger: logger)
        context.write(wrapOutboundOut(.head(HTTPResponse(status: response.status, headerFields: headers))), promise: nil)
        if let body = response.body, answer.request.method != .head { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: promise)
    }
}
