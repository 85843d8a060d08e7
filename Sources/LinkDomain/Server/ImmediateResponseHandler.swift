import Foundation
import Synchronization
import HTTPTypes
import Logging
import NIOCore
import NIOHTTPTypes

/// Answers on the event loop what ``ImmediateResponder`` can answer from the request head alone,
/// before the request enters the router: the association files, the stylesheet, and links that
/// redirect straight on. These are most of a link domain's traffic, and the router's task per
/// request cost three quarters of their time (BENCHMARKS.md). Everything else passes through.
///
/// The answers carry the same headers, count in the same metrics and log the same line as the
/// router's.
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
    let metrics: LinkMetrics
    let logger: Logger
    let securityHeaders: SecurityHeaders
    /// Requests passed on whose responses are not finished: answering a later one here first
    /// would put the responses out of order.
    private var passedOn = 0
    /// The answer to the request being read, written when its end arrives.
    private var answer: Answer?

    init(responder: ImmediateResponder, metrics: LinkMetrics, logger: Logger, securityHeaders: SecurityHeaders) {
        self.responder = responder
        self.metrics = metrics
        self.logger = logger
        self.securityHeaders = securityHeaders
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if passedOn == 0, let answer = answer(request) {
                self.answer = answer
                return
            }
            passedOn += 1
            context.fireChannelRead(data)
        case .body:
            if answer == nil { context.fireChannelRead(data) }
        case .end:
            guard let answer else { return context.fireChannelRead(data) }
            self.answer = nil
            write(answer, context: context)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { passedOn -= 1 }
        context.write(data, promise: promise)
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
        guard let kind = responder.kind(of: path),
              AbuseLimitsMiddleware.headerBytes(request.headerFields) <= AbuseLimitsMiddleware.maximumHeaderBytes,
              let response = responder.respond(to: kind, method: request.method, path: path, query: mark.map { target[target.index(after: $0)...] },
                                               headers: request.headerFields)
        else { return nil }
        return Answer(response: response, request: request, route: kind == .shortLink ? ImmediateResponder.shortLinkRoute : String(path),
                      path: String(path), start: start)
    }

    private func write(_ answer: Answer, context: ChannelHandlerContext) {
        let response = answer.response
        var headers = response.headers
        if headers[.contentLength] == nil, response.status != .notModified { headers[.contentLength] = String(response.body?.readableBytes ?? 0) }
        securityHeaders.add(to: &headers, peer: context.channel.remoteAddress?.ipAddress, requestHeaders: answer.request.headerFields)
        headers[.date] = HTTPDate.now
        context.write(wrapOutboundOut(.head(HTTPResponse(status: response.status, headerFields: headers))), promise: nil)
        if let body = response.body, answer.request.method != .head { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        let duration = answer.start.duration(to: .now)
        metrics.request(route: answer.route, method: answer.request.method, status: response.status.code, duration: duration)
        RequestLog.record(logger, method: answer.request.method, path: answer.path, status: response.status.code, duration: duration)
    }
}

/// `Date` header values (RFC 9110 §5.6.7), formatted at most once a second.
enum HTTPDate {
    private static let cache = Mutex<(second: Int, text: String)>((0, ""))

    static var now: String {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        let second = Int(time.tv_sec)
        return cache.withLock { cached in
            if cached.second != second { cached = (second, format(second)) }
            return cached.text
        }
    }

    static func format(_ second: Int) -> String {
        var time = time_t(second)
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
