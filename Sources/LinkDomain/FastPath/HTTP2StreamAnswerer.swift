import HTTPTypes
import NIOCore
import NIOHPACK
import NIOHTTP2

/// Answers HTTP/2 streams from the connection's frames: a stream whose HEADERS end it (a GET or
/// HEAD, no body) and whose request ``DecodedHeadAnswers`` can answer gets its HEADERS and DATA
/// written here, and never becomes a channel. Every other stream's frames go on to NIO's stream
/// multiplexer behind this handler, which makes it a child channel as before.
///
/// NIO's HTTP/2 handler in front has already checked every frame against the stream's state, and
/// keeps the flow control: a response larger than the client's window waits there. Each stream's
/// header blocks are checked here (``HTTP2RequestBlockCheck``). The frames this handler drops are
/// those of streams it answered (a late RST_STREAM, WINDOW_UPDATE or PRIORITY), which the
/// multiplexer would not know, and those of a malformed request, whose stream it resets.
final class HTTP2StreamAnswerer: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private let answers: DecodedHeadAnswers
    private let blocks: ResponseHeaderBlocks
    /// The streams passed on to the multiplexer, until they close.
    private var passedOn: Set<HTTP2StreamID> = []
    private var needsFlush = false
    /// The last fixed answer's or kept redirect's header block, reused while its `Date` stays the
    /// same (a redirect's, for the same location).
    private var kept: (route: String, https: Bool, second: Int, status: HTTPResponse.Status, location: String?, block: HPACKHeaders)?

    init(answers: DecodedHeadAnswers, blocks: ResponseHeaderBlocks) {
        self.answers = answers
        self.blocks = blocks
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let stream = frame.streamID
        if stream == .rootStream { return context.fireChannelRead(data) }
        if passedOn.contains(stream) {
            // A passed-on stream's next HEADERS are its trailers.
            if case .headers(let trailers) = frame.payload, !HTTP2RequestBlockCheck.isValid(trailers.headers, as: .trailers) {
                return refuse(stream, context: context)
            }
            return context.fireChannelRead(data)
        }
        guard case .headers(let headers) = frame.payload else { return }
        guard HTTP2RequestBlockCheck.isValid(headers.headers, as: .head) else { return refuse(stream, context: context) }
        if headers.endStream, let request = HTTPRequest(http2Head: headers.headers),
            let answer = answers.answer(request, peer: { context.channel.remoteAddress?.peerText })
        {
            write(answer, on: stream, context: context)
            return
        }
        passedOn.insert(stream)
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if needsFlush {
            needsFlush = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    /// The multiplexer hears only of the streams it has: a client's stream is created before its
    /// HEADERS are read, when the multiplexer has no channel for it yet and does nothing with the
    /// event, and a stream answered here closes without the multiplexer ever having had it. Its
    /// look-up of each event cost every HTTP/2 request two more casts and dictionary searches.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if UserEvent.exactly(event, as: NIOHTTP2StreamCreatedEvent.self) != nil { return }
        if let closed = UserEvent.exactly(event, as: StreamClosedEvent.self), passedOn.remove(closed.streamID) == nil { return }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        passedOn.removeAll()
        context.fireChannelInactive()
    }

    /// A malformed request: its stream reset with PROTOCOL_ERROR (RFC 9113 §8.1.1), as NIO's own
    /// check did; the multiplexer never sees its HEADERS, or closes the stream it already has.
    private func refuse(_ stream: HTTP2StreamID, context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(HTTP2Frame(streamID: stream, payload: .rstStream(.protocolError))), promise: nil)
        needsFlush = true
    }

    private func write(_ answer: DecodedHeadAnswer, on stream: HTTP2StreamID, context: ChannelHandlerContext) {
        let peer = context.channel.remoteAddress?.peerText
        let https = answers.finisher.securityHeaders.isHTTPS(peer: peer, requestHeaders: answer.request.headerFields)
        let date = HTTPDate.current
        let block: HPACKHeaders
        let status = answer.response.status
        let keeps = answer.isFixed || answer.keptLocation != nil
        if keeps, let kept, kept.route == answer.route, kept.https == https, kept.second == date.second, kept.status == status,
            kept.location == answer.keptLocation
        {
            block = kept.block
        } else {
            block = blocks.block(answer.response, date: date.text, https: https)
            if keeps { kept = (answer.route, https, date.second, status, answer.keptLocation, block) }
        }
        answers.finisher.record(
            status: answer.response.status, method: answer.request.method, path: answer.path, route: answer.route, since: answer.start,
            logger: answers.logger)
        let body = answer.request.method == .head ? nil : answer.response.body.flatMap { $0.readableBytes > 0 ? $0 : nil }
        let headers = HTTP2Frame.FramePayload.Headers(headers: block, endStream: body == nil)
        context.write(wrapOutboundOut(HTTP2Frame(streamID: stream, payload: .headers(headers))), promise: nil)
        if let body {
            context.write(wrapOutboundOut(HTTP2Frame(streamID: stream, payload: .data(.init(data: .byteBuffer(body), endStream: true)))), promise: nil)
        }
        // Flushed once the frames read together are answered: a client's streams sent at once get one write.
        needsFlush = true
    }
}

/// An ``ImmediateResponse`` as an HTTP/2 header block: the fields ``DecodedHeadAnswers/finishedHead(of:peer:)``
/// gives it, in its order (`:status`, the response's fields, `content-length` unless a 304 or
/// already there, `date`, the security headers), written straight into the block, as
/// ``ResponseBytes`` writes them for HTTP/1.1, instead of through `HTTPFields`.
struct ResponseHeaderBlocks: Sendable {
    private let plain: HPACKHeaders
    private let secure: HPACKHeaders

    init(securityHeaders: SecurityHeaders) {
        plain = HPACKHeaders(fields: securityHeaders.fields(https: false))
        secure = HPACKHeaders(fields: securityHeaders.fields(https: true))
    }

    func block(_ response: ImmediateResponse, date: String, https: Bool) -> HPACKHeaders {
        let trailing = https ? secure : plain
        var block = HPACKHeaders()
        block.reserveCapacity(response.headers.count + trailing.count + 3)
        block.add(name: ":status", value: Self.statusText(response.status))
        for field in response.headers { block.add(name: field.name.canonicalName, value: field.value, indexing: .init(field.indexingStrategy)) }
        if response.headers[.contentLength] == nil, response.status != .notModified {
            block.add(name: "content-length", value: String(response.body?.readableBytes ?? 0))
        }
        block.add(name: "date", value: date)
        block.add(contentsOf: trailing)
        return block
    }

    private static func statusText(_ status: HTTPResponse.Status) -> String {
        switch status.code {
        case 200: "200"
        case 302: "302"
        case 303: "303"
        case 304: "304"
        default: String(status.code)
        }
    }
}

extension HTTPRequest {
    /// The request an HTTP/2 header block carries, read as NIO's HTTP-types codec reads it (its
    /// pseudo-header fields, then the fields whose names HTTP allows), or nil when it is not a
    /// request the codec would read: the stream then goes to the codec, which refuses it.
    init?(http2Head block: HPACKHeaders) {
        var method: String?
        var scheme: String?
        var authority: String?
        var path: String?
        var index = block.startIndex
        while index != block.endIndex {
            let (name, value, _) = block[index]
            guard name.utf8.first == UInt8(ascii: ":") else { break }
            switch name {
            case ":method" where method == nil: method = value
            case ":scheme" where scheme == nil: scheme = value
            case ":authority" where authority == nil: authority = value
            case ":path" where path == nil: path = value
            default: return nil  // repeated, or :protocol (extended CONNECT), or unknown
            }
            index = block.index(after: index)
        }
        guard let method, let parsed = HTTPRequest.Method(method) else { return nil }
        self.init(method: parsed, scheme: scheme, authority: authority, path: path)
        headerFields.reserveCapacity(block.count)
        while index != block.endIndex {
            let (name, value, indexing) = block[index]
            if name.utf8.first == UInt8(ascii: ":") { return nil }
            if let fieldName = HTTPField.Name(name) {
                var field = HTTPField(name: fieldName, value: value)
                field.indexingStrategy = .init(indexing)
                headerFields.append(field)
            }
            index = block.index(after: index)
        }
    }
}

extension HPACKHeaders {
    /// Fields as an HTTP/2 header block, as NIO's HTTP-types codec writes them: by their lower-case
    /// names, each kept out of the compression table as the field asks.
    init(fields: HTTPFields) {
        self.init()
        reserveCapacity(fields.count)
        for field in fields { add(name: field.name.canonicalName, value: field.value, indexing: .init(field.indexingStrategy)) }
    }
}

extension HPACKIndexing {
    init(_ strategy: HTTPField.DynamicTableIndexingStrategy) {
        switch strategy {
        case .avoid: self = .nonIndexable
        case .disallow: self = .neverIndexed
        default: self = .indexable
        }
    }
}

extension HTTPField.DynamicTableIndexingStrategy {
    init(_ indexing: HPACKIndexing) {
        switch indexing {
        case .indexable: self = .automatic
        case .nonIndexable: self = .avoid
        case .neverIndexed: self = .disallow
        }
    }
}
