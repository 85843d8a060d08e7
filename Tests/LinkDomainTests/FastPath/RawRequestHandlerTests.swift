import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Hot requests answered from the connection's bytes")
struct RawRequestHandlerTests {
    static let assetLinks = "GET /.well-known/assetlinks.json HTTP/1.1\r\nHost: links.example.com\r\n\r\n"
    static let health = "GET /healthz HTTP/1.1\r\nHost: links.example.com\r\n\r\n"

    /// What reaches NIO's HTTP decoder: the bytes passed on.
    final class PassedOn: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        var requests: [String] = []
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            requests.append(String(buffer: unwrapInboundIn(data)))
        }
    }

    /// Holds flushes back until released, as a socket that has not taken everything holds the rest.
    final class HeldFlushes: ChannelOutboundHandler {
        typealias OutboundIn = IOData
        private var holding = true
        private var context: ChannelHandlerContext?

        func handlerAdded(context: ChannelHandlerContext) {
            self.context = context
        }

        func flush(context: ChannelHandlerContext) {
            if !holding { context.flush() }
        }

        func release() {
            holding = false
            context?.flush()
        }
    }

    static func channel(writesToSocket: Bool = false, in front: [any ChannelHandler] = []) async throws -> (
        EmbeddedChannel, ConnectionLedger, PassedOn
    ) {
        let services = try await Fixtures.services()
        let ledger = ConnectionLedger()
        let passedOn = PassedOn()
        let handler = RawRequestHandler(
            responder: RawResponder(immediate: services.immediate, finisher: LinkDomainApplication.finisher(services)),
            ledger: ledger, writesToSocket: writesToSocket, logger: Logger(label: "test"))
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers(front + [handler, passedOn])
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).get()
        return (channel, ledger, passedOn)
    }

    static func written(_ channel: EmbeddedChannel) throws -> [String] {
        var answers: [String] = []
        while let data = try channel.readOutbound(as: IOData.self) {
            guard case .byteBuffer(let buffer) = data else { continue }
            answers.append(String(buffer: buffer))
        }
        return answers
    }

    @Test("pipelined hot requests are answered in order, each whole; others pass on and hold later answers back until theirs")
    func order() async throws {
        let (channel, ledger, passedOn) = try await Self.channel()
        try channel.writeInbound(ByteBuffer(string: Self.assetLinks + Self.assetLinks + Self.health + Self.assetLinks))
        let answers = try Self.written(channel)
        #expect(answers.count == 2)
        #expect(answers.allSatisfy { $0.hasPrefix("HTTP/1.1 200 OK\r\n") && $0.contains("\r\n\r\n[") && $0.contains("X-Frame-Options: DENY\r\n") })
        // The health check waits for the router, so the request after it must too.
        #expect(passedOn.requests == [Self.health, Self.assetLinks])
        #expect(ledger.passedOn == 2)
        ledger.responseEnded()
        ledger.responseEnded()
        try channel.writeInbound(ByteBuffer(string: Self.assetLinks))
        #expect(try Self.written(channel).count == 1)
        #expect(passedOn.requests.count == 2)
    }

    @Test("a closing answer closes the connection at once when the socket took it whole, and only once the rest is out when not")
    func closingAnswer() async throws {
        let closing = "GET /.well-known/assetlinks.json HTTP/1.1\r\nHost: links.example.com\r\nConnection: close\r\n\r\n"
        for socketTakesItAll in [true, false] {
            let held = HeldFlushes()
            let (channel, _, _) = try await Self.channel(writesToSocket: true, in: socketTakesItAll ? [] : [held])
            try channel.writeInbound(ByteBuffer(string: closing + Self.assetLinks))
            channel.embeddedEventLoop.run()
            if !socketTakesItAll {
                #expect(channel.isActive, "closed with the answer still unwritten")
                #expect(try Self.written(channel).isEmpty)
                held.release()
                channel.embeddedEventLoop.run()
            }
            #expect(!channel.isActive)
            let answers = try Self.written(channel).filter { !$0.isEmpty }
            #expect(answers.count == 1)
            #expect(answers.first?.hasPrefix("HTTP/1.1 200 OK\r\n") == true && answers.first?.contains("\r\nConnection: close\r\n") == true)
            #expect(answers.first?.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("]") == true, "the answer was cut short")
        }
    }

    @Test("the client's end of input behind requests waiting for the connection to drain: each is answered, then the close")
    func inputEndsBehindWaitingRequests() async throws {
        // As the public port sets a plain connection up: the router's half installed when a request needs it.
        let services = try await Fixtures.services()
        let plain = FastPathChannel(
            responder: { _, _, _ in }, immediate: services.immediate, finisher: LinkDomainApplication.finisher(services),
            idleTimeout: .seconds(60), secure: false, logger: Logger(label: "test"))
        let channel = EmbeddedChannel()
        try plain.setUp(channel) { _ in }
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).get()
        channel.isWritable = false
        try channel.writeInbound(ByteBuffer(string: Self.assetLinks + Self.assetLinks + Self.assetLinks))
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        channel.embeddedEventLoop.run()
        #expect(channel.isActive, "closed with requests unanswered")
        #expect(try Self.written(channel).isEmpty)
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.run()
        #expect(try Self.written(channel).filter { !$0.isEmpty }.count == 3)
        #expect(!channel.isActive)
    }

    /// The router's half as it ends a connection: closes once the client's input has ended.
    final class ClosesAtEndOfInput: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        var heardTheEnd = false
        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            guard event as? ChannelEvent == .inputClosed else { return }
            heardTheEnd = true
            context.close(promise: nil)
        }
    }

    @Test("the router's half hears of the end of input after the requests that waited, and its close waits for what was written")
    func routerHalfClosesAfterWaitingRequests() async throws {
        let held = HeldFlushes(), routerHalf = ClosesAtEndOfInput()
        let (channel, ledger, _) = try await Self.channel(writesToSocket: true, in: [held])
        try channel.pipeline.syncOperations.addHandler(routerHalf)
        channel.isWritable = false
        try channel.writeInbound(ByteBuffer(string: Self.assetLinks + Self.assetLinks + Self.assetLinks))
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(!routerHalf.heardTheEnd, "the end overtook requests still waiting")
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.run()
        #expect(routerHalf.heardTheEnd)
        #expect(channel.isActive, "closed with the answers still unwritten")
        #expect(ledger.closeHeld, "the idle clock would not bound the wait")
        held.release()
        channel.embeddedEventLoop.run()
        #expect(!channel.isActive)
        let answers = try Self.written(channel).filter { !$0.isEmpty }
        #expect(answers.count == 3)
        #expect(answers.allSatisfy { $0.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("]") }, "an answer was cut short")
    }

    @Test("the idle clock's close of a client that does not read is not held for what it has not read")
    func expiredCloseIsNotHeld() async throws {
        let held = HeldFlushes()
        let (channel, ledger, _) = try await Self.channel(writesToSocket: true, in: [held])
        try channel.writeInbound(ByteBuffer(string: Self.assetLinks))
        ledger.expired = true
        channel.close(promise: nil)
        channel.embeddedEventLoop.run()
        #expect(!channel.isActive)
    }

    @Test("a head split across reads is answered once it is whole")
    func split() async throws {
        let (channel, _, passedOn) = try await Self.channel()
        let bytes = Array(Self.assetLinks.utf8)
        for piece in stride(from: 0, to: bytes.count, by: 7) {
            try channel.writeInbound(ByteBuffer(bytes: bytes[piece..<min(piece + 7, bytes.count)]))
        }
        #expect(try Self.written(channel).count == 1)
        #expect(passedOn.requests.isEmpty)
    }

    @Test("once a request is one the reader is unsure of, every later byte goes to the decoder as it is")
    func unsure() async throws {
        let (channel, _, passedOn) = try await Self.channel()
        let smuggled = "GET / HTTP/1.1\r\nContent-Length: 60\r\n\r\n" + Self.assetLinks
        try channel.writeInbound(ByteBuffer(string: Self.assetLinks + smuggled))
        try channel.writeInbound(ByteBuffer(string: Self.assetLinks))
        #expect(try Self.written(channel).count == 1)
        #expect(passedOn.requests == [smuggled, Self.assetLinks])
    }

    @Test("the answer is the association file with the security headers and the current Date")
    func fixedAnswer() async throws {
        let (channel, _, _) = try await Self.channel()
        let before = Int(Date().timeIntervalSince1970)
        try channel.writeInbound(ByteBuffer(string: Self.assetLinks + Self.assetLinks))
        let answers = try Self.written(channel)
        let after = Int(Date().timeIntervalSince1970)
        #expect(answers.count == 2)
        for answer in answers {
            #expect((before...after).contains { answer.contains("\r\nDate: \(HTTPDate.format($0))\r\n") })
            #expect(answer.contains("Content-Type: application/json\r\n") && answer.contains("Content-Security-Policy: default-src 'none'"))
        }
    }

    @Test(
        "a link that redirects straight on: the router's status and Location; a page made from the link alone too; a form that needs the backend is the router's"
    )
    func redirect() async throws {
        let (channel, _, passedOn) = try await Self.channel()
        let desktop = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"
        try channel.writeInbound(ByteBuffer(string: "GET /?link=https%3A%2F%2Fexample.com%2Fproduct&efr=1 HTTP/1.1\r\nUser-Agent: \(desktop)\r\n\r\n"))
        let answers = try Self.written(channel)
        #expect(answers.count == 1)
        #expect(answers.first?.hasPrefix("HTTP/1.1 302 Found\r\nLocation: https://example.com/product\r\nCache-Control: no-store\r\n") == true)
        #expect(answers.first?.hasSuffix("\r\n\r\n") == true && answers.first?.contains("Content-Length: 0\r\n") == true)
        let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
        let preview = "GET /?link=https%3A%2F%2Fexample.com%2Fproduct&ibi=com.example.mail HTTP/1.1\r\nUser-Agent: \(iPhone)\r\n\r\n"
        try channel.writeInbound(ByteBuffer(string: preview))
        let page = try Self.written(channel)
        #expect(page.count == 1 && page.first?.hasPrefix("HTTP/1.1 200 OK\r\n") == true && page.first?.contains("text/html") == true)
        // A reset link's form: the backend checks its code first, so the router answers it.
        let reset = "GET /__/auth/action?apiKey=k&mode=resetPassword&oobCode=C HTTP/1.1\r\nUser-Agent: \(desktop)\r\n\r\n"
        try channel.writeInbound(ByteBuffer(string: reset))
        #expect(try Self.written(channel).isEmpty)
        #expect(passedOn.requests == [reset])
    }

    @Test("redirects kept for their bytes: each answer still carries its own link's location, pipelined or not")
    func keptRedirects() async throws {
        let (channel, _, _) = try await Self.channel()
        func request(_ target: String) -> String {
            "GET /?link=https%3A%2F%2Fexample.com%2F\(target)&efr=1 HTTP/1.1\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0\r\n\r\n"
        }
        try channel.writeInbound(ByteBuffer(string: request("product") + request("other") + request("other") + request("product")))
        try channel.writeInbound(ByteBuffer(string: request("product")))
        let locations = try Self.written(channel).map { $0.split(separator: "\r\n").first { $0.hasPrefix("Location: ") } }
        #expect(locations == ["product", "other", "other", "product", "product"].map { "Location: https://example.com/\($0)" })
    }
}

@Suite("Response bytes")
struct ResponseBytesTests {
    @Test("a redirect written directly is the same bytes as the redirect response encoded; an unusual location goes through the fields")
    func redirect() {
        let writer = ResponseBytes(trailingFields: SecurityHeaders(terminatesTLS: true, trustedProxies: []).fields(https: true))
        let date = HTTPDate.format(1_795_000_000)
        for (status, location) in [
            (HTTPResponse.Status.seeOther, "https://example.com/done?apiKey=k&oobCode=C&mode=signIn&lang=en"),
            (.found, "https://example.com/product/42"),
        ] {
            for closing in [false, true] {
                let direct = writer.encodeRedirect(status, location: location, date: date, closing: closing, allocator: ByteBufferAllocator())
                let encoded = writer.encode(
                    .redirect(status, to: location), date: date, includeBody: true, closing: closing, allocator: ByteBufferAllocator())
                #expect(direct == encoded)
            }
        }
        #expect(writer.encodeRedirect(.found, location: "https://example.com/a b", date: date, allocator: ByteBufferAllocator()) == nil)
        #expect(writer.encodeRedirect(.found, location: "https://example.com/é", date: date, allocator: ByteBufferAllocator()) == nil)
        #expect(writer.encodeRedirect(.temporaryRedirect, location: "https://example.com/", date: date, allocator: ByteBufferAllocator()) == nil)
    }
}
