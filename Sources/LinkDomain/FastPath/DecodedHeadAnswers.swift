import HTTPTypes
import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore

/// An answer the event loop gives to a decoded request head, with what its metric and log line need.
struct DecodedHeadAnswer {
    let response: ImmediateResponse
    let request: HTTPRequest
    /// The route pattern, as metrics count it.
    let route: String
    let path: String
    let start: ContinuousClock.Instant
    /// What was answered: nil for a refusal.
    var kind: ImmediateResponder.Kind? = nil
    /// A redirect's location, when its header block may be kept (``ImmediateResponder/keepsRedirect(of:route:)``).
    var keptLocation: String? = nil

    /// The same bytes for every request of its kind, but for the date: an association file or the
    /// stylesheet, unless the request asked for a 304.
    var isFixed: Bool {
        guard request.headerFields[.ifNoneMatch] == nil else { return false }
        return kind == .appleAssociation || kind == .androidAssociation || kind == .stylesheet
    }
}

/// The event loop's answers to decoded request heads: HTTP/1.1 heads NIO's decoder read
/// (``ImmediateResponseHandler``) and HTTP/2 streams' HEADERS (``HTTP2StreamAnswerer``). One
/// place decides what may be answered and finishes the answer's head, so the two transports give
/// the same status, fields and body.
struct DecodedHeadAnswers: Sendable {
    let responder: ImmediateResponder
    let finisher: ResponseFinisher
    let logger: Logger

    /// The answer to `request`, or nil when the router must serve it.
    /// - Parameter peer: the connection's peer address, read only when a form needs it.
    func answer(_ request: HTTPRequest, peer: () -> String?) -> DecodedHeadAnswer? {
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
        var decoded = DecodedHeadAnswer(response: answer.response, request: request, route: route, path: String(path), start: start, kind: kind)
        if case .redirect(_, let location) = answer, ImmediateResponder.keepsRedirect(of: kind, route: route) { decoded.keptLocation = location }
        return decoded
    }

    /// The answer's response head with every field an answer gets (its length, the date, the
    /// security headers); counts the request and logs its line, as the router's answers do.
    func finishedHead(of answer: DecodedHeadAnswer, peer: @autoclosure () -> String?) -> HTTPResponse {
        let response = answer.response
        var headers = response.headers
        if headers[.contentLength] == nil, response.status != .notModified { headers[.contentLength] = String(response.body?.readableBytes ?? 0) }
        headers[.date] = HTTPDate.now
        finisher.finish(
            &headers, status: response.status, method: answer.request.method, path: answer.path, route: answer.route, peer: peer(),
            requestHeaders: answer.request.headerFields, since: answer.start, logger: logger)
        return HTTPResponse(status: response.status, headerFields: headers)
    }
}
