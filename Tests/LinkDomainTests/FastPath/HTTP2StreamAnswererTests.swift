import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import NIOHTTPTypes
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

/// HTTP/2 streams answered from the connection's frames give what a decoded HTTP/1.1 head gets,
/// and every stream they do not answer reaches the multiplexer whole.
@Suite("HTTP/2 streams answered from their frames")
struct HTTP2StreamAnswererTests {
    /// What passes on: the frames the multiplexer would get.
    final class PassedOn<Part>: ChannelInboundHandler {
        typealias InboundIn = Part
        var parts: [Part] = []
        /// The streams whose closing passed on, and whether any other event did.
        var closedStreams: [HTTP2StreamID] = []
        var otherEvents = 0
        func channelRead(context: ChannelHandlerContext, data: NIOAny) { parts.append(unwrapInboundIn(data)) }
        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if let closed = event as? StreamClosedEvent { closedStreams.append(closed.streamID) } else { otherEvents += 1 }
        }
    }

    /// One answer as a client reads it: nil when the request passed on.
    struct Answer: Equatable, CustomStringConvertible {
        var status: Int
        var fields: [String: String]
        var body: String
        var description: String { "\(status) \(fields) \(body.prefix(200))" }
    }

    static func connected(_ handlers: [any ChannelHandler], peer: String) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers(handlers)
        try channel.connect(to: SocketAddress(ipAddress: peer, port: 443)).wait()
        return channel
    }

    static func answers(_ services: LinkDomainServices) -> DecodedHeadAnswers {
        DecodedHeadAnswers(responder: services.immediate, finisher: LinkDomainApplication.finisher(services), logger: Logger(label: "test"))
    }

    static func answerer(_ answers: DecodedHeadAnswers) -> HTTP2StreamAnswerer {
        HTTP2StreamAnswerer(answers: answers, blocks: ResponseHeaderBlocks(securityHeaders: answers.finisher.securityHeaders))
    }

    /// The answer HTTP/1.1's decoded path gives (``ImmediateResponseHandler``).
    static func http1(_ request: HTTPRequest, answers: DecodedHeadAnswers, peer: String) throws -> Answer? {
        let passedOn = PassedOn<HTTPRequestPart>()
        let channel = try connected([ImmediateResponseHandler(answers: answers), passedOn], peer: peer)
        try channel.writeInbound(HTTPRequestPart.head(request))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        var answer: Answer?
        while let part = try channel.readOutbound(as: HTTPResponsePart.self) {
            switch part {
            case .head(let head):
                var fields: [String: String] = [:]
                for field in head.headerFields where field.name != .date { fields[field.name.canonicalName] = field.value }
                answer = Answer(status: head.status.code, fields: fields, body: "")
            case .body(let body): answer?.body += String(buffer: body)
            case .end: break
            }
        }
        #expect((answer == nil) == (passedOn.parts.count == 2), "\(request)")
        return answer
    }

    /// The answer the HTTP/2 connection's frames get (``HTTP2StreamAnswerer``), and the frames written.
    static func http2(_ request: HTTPRequest, answers: DecodedHeadAnswers, peer: String) throws -> (Answer?, [HTTP2Frame]) {
        let passedOn = PassedOn<HTTP2Frame>()
        let channel = try connected([answerer(answers), passedOn], peer: peer)
        var block = HPACKHeaders()
        block.add(name: ":method", value: request.method.rawValue)
        block.add(name: ":scheme", value: request.scheme ?? "https")
        block.add(name: ":authority", value: request.authority ?? "links.example.com")
        block.add(name: ":path", value: request.path ?? "/")
        for field in request.headerFields { block.add(name: field.name.canonicalName, value: field.value) }
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: .headers(.init(headers: block, endStream: true))))
        channel.pipeline.fireChannelReadComplete()
        var frames: [HTTP2Frame] = []
        var answer: Answer?
        while let frame = try channel.readOutbound(as: HTTP2Frame.self) {
            frames.append(frame)
            #expect(frame.streamID == 1)
            switch frame.payload {
            case .headers(let headers):
                var fields: [String: String] = [:]
                var status = 0
                for (name, value, _) in headers.headers {
                    // A field twice (a security header the answer already had, say) would escape the comparison.
                    #expect(fields[name] == nil, "\(name) twice")
                    if name == ":status" { status = Int(value) ?? -1 } else if name != "date" { fields[name] = value }
                }
                answer = Answer(status: status, fields: fields, body: "")
            case .data(let data):
                guard case .byteBuffer(let body) = data.data else { continue }
                answer?.body += String(buffer: body)
            default: Issue.record("unexpected frame \(frame)")
            }
        }
        #expect((answer == nil) == (passedOn.parts.count == 1), "\(request)")
        return (answer, frames)
    }

    @Test("generated links and visitors: the same status, fields and body as HTTP/1.1's decoded heads, or both passed on")
    func sameAnswers() async throws {
        let (generated, shortLinks) = OneAnswerPropertyTests.requests(count: 160, seed: 11)
        let services = try await OneAnswerPropertyTests.services(shortLinks: shortLinks)
        for (suffix, _) in shortLinks { _ = try await services.linkStore.shortLink(suffix: suffix) }
        let answers = Self.answers(services)
        let association: [(String, HTTPRequest.Method, HTTPFields)] = [
            ("/.well-known/apple-app-site-association", .get, [:]), ("/.well-known/assetlinks.json", .head, [:]),
            ("/.well-known/assetlinks.json", .get, [.ifNoneMatch: "\"nothing\""]), ("/healthz", .get, [:]),
        ]
        let requests = generated.map { ($0.path, $0.method, $0.headers) } + association
        var answeredBoth = 0
        for (index, (path, method, headers)) in requests.enumerated() {
            let request = HTTPRequest(method: method, scheme: "https", authority: "links.example.com", path: path, headerFields: headers)
            // A peer of its own for each, so that no page-check budget runs out for one and not the other.
            let one = try Self.http1(request, answers: answers, peer: "10.1.\(index / 200).\(index % 200 + 1)")
            let (two, frames) = try Self.http2(request, answers: answers, peer: "10.2.\(index / 200).\(index % 200 + 1)")
            let normalized = { (answer: Answer?) in
                answer.map { Answer(status: $0.status, fields: $0.fields, body: OneAnswerPropertyTests.withoutFormTokens($0.body)) }
            }
            #expect(normalized(one) == normalized(two), "\(method) \(path)")
            guard let two else { continue }
            answeredBoth += 1
            // A response without a body ends its stream with its HEADERS; one with a body with its DATA.
            if case .headers(let headers) = frames.first?.payload { #expect(headers.endStream == two.body.isEmpty, "\(path)") }
            #expect(frames.count == (two.body.isEmpty ? 1 : 2))
        }
        #expect(answeredBoth > requests.count / 2, "\(answeredBoth) of \(requests.count)")
    }

    @Test("a stream with a body, and its later frames, pass on until it closes; late frames of an answered stream are dropped")
    func passingOn() async throws {
        let services = try await Fixtures.services()
        let passedOn = PassedOn<HTTP2Frame>()
        let channel = try Self.connected([Self.answerer(Self.answers(services)), passedOn], peer: "192.0.2.7")
        func head(_ method: String, _ path: String, endStream: Bool) -> HTTP2Frame.FramePayload {
            .headers(.init(headers: [":method": method, ":scheme": "https", ":authority": "links.example.com", ":path": path], endStream: endStream))
        }
        // Stream 1: a POST with a body; stream 3: the association file, answered; stream 5: a GET the router serves.
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: head("POST", "/v1/shortLinks", endStream: false)))
        try channel.writeInbound(HTTP2Frame(streamID: 3, payload: head("GET", "/.well-known/assetlinks.json", endStream: true)))
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: .data(.init(data: .byteBuffer(ByteBuffer(string: "{}")), endStream: true))))
        try channel.writeInbound(HTTP2Frame(streamID: 3, payload: .rstStream(.cancel)))
        try channel.writeInbound(HTTP2Frame(streamID: 5, payload: head("GET", "/healthz", endStream: true)))
        try channel.writeInbound(HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(withInteger: 7), ack: false)))
        #expect(passedOn.parts.map(\.streamID) == [1, 1, 5, .rootStream])
        let written = try [channel.readOutbound(as: HTTP2Frame.self), channel.readOutbound(as: HTTP2Frame.self)]
        #expect(written.map { $0?.streamID } == [3, 3])
        #expect(try channel.readOutbound(as: HTTP2Frame.self) == nil)
        // Once stream 1 has closed, a stray frame of it is not the multiplexer's.
        channel.pipeline.fireUserInboundEventTriggered(StreamClosedEvent(streamID: 1, reason: nil))
        try channel.writeInbound(HTTP2Frame(streamID: 1, payload: .windowUpdate(windowSizeIncrement: 10)))
        #expect(passedOn.parts.count == 4)
        // The multiplexer hears of the streams it has, and of the connection: not of a stream's
        // creation (it has no channel for it yet), nor of the close of one answered here.
        let pipeline = channel.pipeline
        pipeline.fireUserInboundEventTriggered(NIOHTTP2StreamCreatedEvent(streamID: 7, localInitialWindowSize: 65535, remoteInitialWindowSize: 65535))
        pipeline.fireUserInboundEventTriggered(StreamClosedEvent(streamID: 3, reason: nil))
        pipeline.fireUserInboundEventTriggered(StreamClosedEvent(streamID: 5, reason: nil))
        pipeline.fireUserInboundEventTriggered(NIOHTTP2WindowUpdatedEvent(streamID: .rootStream, inboundWindowSize: 65535, outboundWindowSize: 65535))
        #expect(passedOn.closedStreams == [1, 5])
        #expect(passedOn.otherEvents == 1)
    }

    @Test("a connection's fixed answers and link redirects are reused, but never for a 304, another file or another location")
    func fixedAnswers() async throws {
        let services = try await Fixtures.services()
        let channel = try Self.connected([Self.answerer(Self.answers(services))], peer: "192.0.2.8")
        func ask(_ stream: HTTP2StreamID, _ path: String, _ extra: [(String, String)] = []) throws -> [String: String] {
            let block = HPACKHeaders([(":method", "GET"), (":scheme", "https"), (":authority", "links.example.com"), (":path", path)] + extra)
            try channel.writeInbound(HTTP2Frame(streamID: stream, payload: .headers(.init(headers: block, endStream: true))))
            var fields: [String: String] = [:]
            while let frame = try channel.readOutbound(as: HTTP2Frame.self) {
                if case .headers(let headers) = frame.payload { for (name, value, _) in headers.headers where name != "date" { fields[name] = value } }
            }
            return fields
        }
        let first = try ask(1, "/.well-known/assetlinks.json")
        #expect(first[":status"] == "200" && first["etag"] != nil)
        #expect(try ask(3, "/.well-known/assetlinks.json") == first)
        #expect(try ask(5, "/.well-known/assetlinks.json", [("if-none-match", first["etag"] ?? "")])[":status"] == "304")
        // A list split over two fields is one list: the file's tag in the second still matches.
        let split = [("if-none-match", "\"other\""), ("if-none-match", first["etag"] ?? "")]
        #expect(try ask(9, "/.well-known/assetlinks.json", split)[":status"] == "304")
        #expect(try ask(11, "/.well-known/assetlinks.json", [("if-none-match", "\"other\"")])[":status"] == "200")
        let apple = try ask(7, "/.well-known/apple-app-site-association")
        #expect(apple[":status"] == "200" && apple["etag"] != first["etag"])
        // A Dynamic Link's redirect is kept for its location alone: each answer has its own link's.
        let agent = [("user-agent", "Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0")]
        let locations = try [("product", 13), ("other", 15), ("other", 17), ("product", 19)].map { target, stream in
            try ask(HTTP2StreamID(stream), "/?link=https%3A%2F%2Fexample.com%2F\(target)&efr=1", agent)["location"]
        }
        #expect(locations == ["product", "other", "other", "product"].map { "https://example.com/\($0)" })
        #expect(try ask(21, "/.well-known/assetlinks.json") == first)
    }

    @Test("header blocks the HTTP-types codec would not read are left to it")
    func unreadableBlocks() {
        #expect(HTTPRequest(http2Head: HPACKHeaders([(":path", "/"), (":method", "GET"), (":method", "GET")])) == nil)
        #expect(HTTPRequest(http2Head: HPACKHeaders([(":method", "GET"), (":path", "/"), ("accept", "*/*"), (":authority", "x")])) == nil)
        #expect(HTTPRequest(http2Head: HPACKHeaders([(":method", "CONNECT"), (":protocol", "websocket"), (":path", "/")])) == nil)
        #expect(HTTPRequest(http2Head: HPACKHeaders([(":path", "/")])) == nil)
        let read = HTTPRequest(
            http2Head: HPACKHeaders([(":method", "GET"), (":scheme", "https"), (":path", "/a?b"), ("user-agent", "x"), ("bad name", "y")]))
        #expect(read?.path == "/a?b" && read?.headerFields[.userAgent] == "x" && read?.headerFields.count == 1)
    }
}
