import HTTPTypes
import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore

/// Answers a request read by ``RawRequestHead`` with the bytes of ``ImmediateResponder``'s answer:
/// the same status, fields and body as the router's path (``ResponseBytes``), counted in the same
/// metrics. Fixed answers (association files, the stylesheet) are encoded once a second per
/// connection (per thread, for connections that close after one answer) and written as they are.
///
/// A class: every connection's reader holds this one instance rather than a copy of its parts.
final class RawResponder: Sendable {
    /// A connection's last fixed answer or link redirect, its bytes reused while its `Date` stays
    /// the same (``SharedCache`` for answers that close their connection). A redirect is reused
    /// only for the same location: the answer is decided (and its click counted) every time, only
    /// its bytes are not written again.
    struct Cache {
        fileprivate var key: (kind: ImmediateResponder.Kind, https: Bool, closing: Bool)?
        fileprivate var second = 0
        fileprivate var status = HTTPResponse.Status.ok
        /// The redirect's location; nil for a fixed answer.
        fileprivate var location: String?
        fileprivate var bytes = ByteBuffer()

        /// Whether the bytes kept are those of an answer of `kind` made in `second`.
        fileprivate func holds(_ kind: ImmediateResponder.Kind, https: Bool, closing: Bool, second: Int) -> Bool {
            guard let key else { return false }
            return key.kind == kind && key.https == https && key.closing == closing && self.second == second
        }

        fileprivate mutating func keep(
            _ bytes: ByteBuffer, status: HTTPResponse.Status, location: String?, kind: ImmediateResponder.Kind, https: Bool, closing: Bool,
            second: Int
        ) {
            key = (kind, https, closing)
            self.second = second
            self.status = status
            self.location = location
            self.bytes = bytes
        }

        init() {}
    }

    /// The fixed answers of connections that close after one: a thread's, shared by its connections.
    final class SharedCache {
        var cache = Cache()

        /// This thread's (an event loop's).
        static var current: SharedCache { threads.current }

        private static let threads = PerThread { SharedCache() }
    }

    /// What was written, for the metrics and the log.
    struct Answer {
        var bytes: ByteBuffer
        var status: HTTPResponse.Status
        var route: String
    }

    let immediate: ImmediateResponder
    let finisher: ResponseFinisher
    private let plain: ResponseBytes
    private let secure: ResponseBytes

    init(immediate: ImmediateResponder, finisher: ResponseFinisher) {
        self.immediate = immediate
        self.finisher = finisher
        plain = ResponseBytes(trailingFields: finisher.securityHeaders.fields(https: false))
        secure = ResponseBytes(trailingFields: finisher.securityHeaders.fields(https: true))
    }

    /// The answer to the GET whose head starts `bytes`, or nil when it is the router's.
    func answer(
        _ head: RawRequestHead, in bytes: UnsafeRawBufferPointer, peer: () -> String?, cache: inout Cache,
        allocator: ByteBufferAllocator, logger: Logger
    ) -> Answer? {
        // Limits are the router's to answer.
        guard head.isAnswerable, AdmissionPolicy.mayAnswerOnEventLoop(targetBytes: head.target.count, headerBytes: head.headerBytes) else {
            return nil
        }
        let target = UnsafeRawBufferPointer(rebasing: bytes[head.target])
        let mark = target.firstIndex(of: UInt8(ascii: "?"))
        guard let (kind, route) = immediate.match(UnsafeRawBufferPointer(rebasing: target[..<(mark ?? target.endIndex)])) else { return nil }
        func field(_ range: Range<Int>?) -> UnsafeRawBufferPointer? { range.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) } }
        func text(_ range: Range<Int>?) -> String? { field(range).map { String(decoding: $0, as: UTF8.self) } }
        // A host development does not answer gets the router's 421.
        if let hosts = immediate.developmentHosts, !hosts.allows(bytes: field(head.host)) { return nil }
        let https = finisher.securityHeaders.isHTTPS(peer: peer(), forwardedProto: text(head.forwardedProto))
        let date = HTTPDate.current
        let closing = head.closesConnection
        let isFixed = kind == .appleAssociation || kind == .androidAssociation || kind == .stylesheet
        if isFixed, head.ifNoneMatch == nil, cache.location == nil, cache.holds(kind, https: https, closing: closing, second: date.second) {
            return Answer(bytes: cache.bytes, status: cache.status, route: route)
        }
        let targetText = String(decoding: target, as: UTF8.self)
        let query = mark.map { targetText.utf8.index(targetText.startIndex, offsetBy: $0 + 1) }.map { targetText[$0...] }
        let path = mark.map { targetText[..<targetText.utf8.index(targetText.startIndex, offsetBy: $0)] } ?? targetText[...]
        // The thread's last visitor, if these are its fields: then no string is made of them.
        let visitor = immediate.knownVisitors.current.lastVisitor(userAgent: field(head.userAgent), platformHint: field(head.platformHint))
        let headers = ImmediateResponder.RequestHeaders(
            userAgent: visitor == nil ? text(head.userAgent) : nil, platformHint: visitor == nil ? text(head.platformHint) : nil,
            ifNoneMatch: text(head.ifNoneMatch), acceptLanguage: text(head.acceptLanguage),
            host: immediate.router.pivotHost == nil ? nil : text(head.host), visitor: visitor)
        let writer = https ? secure : plain
        let response: ImmediateResponse
        switch immediate.answer(to: kind, method: .get, path: path, query: query, headers: headers, peer: peer, logger: logger) {
        case .response(let fixed):
            response = fixed
        case .redirect(let status, let location):
            // A short link's kept redirect gives the same location, even the same string, each time.
            let keeps = ImmediateResponder.keepsRedirect(of: kind, route: route)
            if keeps, cache.status == status, cache.location == location, cache.holds(kind, https: https, closing: closing, second: date.second) {
                return Answer(bytes: cache.bytes, status: status, route: route)
            }
            if let encoded = writer.encodeRedirect(status, location: location, date: date.text, closing: closing, allocator: allocator) {
                if keeps { cache.keep(encoded, status: status, location: location, kind: kind, https: https, closing: closing, second: date.second) }
                return Answer(bytes: encoded, status: status, route: route)
            }
            response = .redirect(status, to: location)
        case nil:
            return nil
        }
        let encoded = writer.encode(response, date: date.text, includeBody: true, closing: closing, allocator: allocator)
        if isFixed, head.ifNoneMatch == nil {
            cache.keep(encoded, status: response.status, location: nil, kind: kind, https: https, closing: closing, second: date.second)
        }
        return Answer(bytes: encoded, status: response.status, route: route)
    }

    /// The request metric and log line the router's path records for each answer.
    func record(_ answer: Answer, head: RawRequestHead, in bytes: UnsafeRawBufferPointer, since start: ContinuousClock.Instant, logger: Logger) {
        let target = UnsafeRawBufferPointer(rebasing: bytes[head.target])
        finisher.record(
            status: answer.status, method: .get,
            path: String(decoding: target[..<(target.firstIndex(of: UInt8(ascii: "?")) ?? target.endIndex)], as: UTF8.self),
            route: answer.route, since: start, logger: logger)
    }
}

extension RawResponder {
    /// The answer's bytes to a request read by ``RawRequestHandler`` on `context`'s connection,
    /// counted in the metrics, or nil when the request is the router's.
    func answerBytes(
        _ head: RawRequestHead, in bytes: ByteBuffer, context: ChannelHandlerContext, cache connectionCache: inout Cache, logger: Logger
    ) -> ByteBuffer? {
        let start = ContinuousClock.now
        return bytes.withUnsafeReadableBytes { raw in
            func answer(cache: inout Cache) -> Answer? {
                self.answer(
                    head, in: raw, peer: { context.channel.remoteAddress?.peerText }, cache: &cache, allocator: context.channel.allocator,
                    logger: logger)
            }
            // A connection that closes after this answer uses its thread's cache, not its own.
            guard let answer = head.closesConnection ? answer(cache: &SharedCache.current.cache) : answer(cache: &connectionCache)
            else { return nil }
            record(answer, head: head, in: raw, since: start, logger: logger)
            return answer.bytes
        }
    }
}

/// Only ever used on the thread that made it (``RawResponder/SharedCache/current``).
extension RawResponder.SharedCache: @unchecked Sendable {}
