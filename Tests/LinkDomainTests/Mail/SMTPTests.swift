import NIOCore
import NIOEmbedded
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("SMTP: the relay's replies read strictly, dot-stuffing, relay URLs, retry timing")
struct SMTPTests {
    /// Feeds `bytes` to the reply decoder; the replies, or the error it raised.
    static func replies(_ bytes: String) throws -> [SMTPReply] {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(SMTPReplyDecoder()))
        defer { _ = try? channel.finish() }
        try channel.writeInbound(ByteBuffer(string: bytes))
        var replies: [SMTPReply] = []
        while let reply = try channel.readInbound(as: SMTPReply.self) { replies.append(reply) }
        return replies
    }

    @Test("single and multi-line replies, CRLF or LF, split anywhere")
    func replies() throws {
        let replies = try Self.replies("220 relay ready\r\n250-relay.example\r\n250-STARTTLS\n250 AUTH PLAIN LOGIN\r\n550 5.1.1 no\r\n")
        #expect(
            replies == [
                SMTPReply(code: 220, lines: ["relay ready"]), SMTPReply(code: 250, lines: ["relay.example", "STARTTLS", "AUTH PLAIN LOGIN"]),
                SMTPReply(code: 550, lines: ["5.1.1 no"]),
            ])
        #expect(replies[2].description == "550 5.1.1 no" && !replies[2].isTransient)
        #expect(try Self.replies("250") == [])  // no line end yet: waits
    }

    @Test(
        "what is not SMTP is an error, never a guess or an unbounded buffer",
        arguments: ["HTTP/1.1 200 OK\r\n", "25\r\n", "999 nine\r\n", "250-a\r\n251 b\r\n", "250*x\r\n", String(repeating: "2", count: 5000)])
    func malformed(bytes: String) {
        #expect(throws: (any Error).self) { try Self.replies(bytes) }
    }

    @Test("too many lines in one reply is an error")
    func tooManyLines() {
        #expect(throws: (any Error).self) { try Self.replies(String(repeating: "250-x\r\n", count: 200)) }
    }

    @Test("DATA: CRLF line ends, a leading dot doubled, the closing dot")
    func dotStuffing() {
        #expect(SMTPSession.dotStuffed("a\r\n.b\r\n..c\r\n.\r\nend\r\n") == "a\r\n..b\r\n...c\r\n..\r\nend\r\n.\r\n")
        #expect(SMTPSession.dotStuffed("bare\nline") == "bare\r\nline\r\n.\r\n")
    }

    @Test("relay URLs: STARTTLS or implicit TLS, default ports, percent-encoded credentials; anything else refused")
    func relayURLs() throws {
        let relay = try #require(SMTPRelay(url: "smtp://user%40example.com:p%3Ass@Relay.Example.com:2525"))
        #expect(relay.security == .startTLS && relay.host == "relay.example.com" && relay.port == 2525)
        #expect(relay.username == "user@example.com" && relay.password == "p:ss")
        #expect(relay.redacted == "smtp://user@example.com:***@relay.example.com:2525")
        #expect(SMTPRelay(url: "smtp://relay.example.com")?.port == 587)
        #expect(SMTPRelay(url: "smtps://relay.example.com/")?.port == 465)
        #expect(SMTPRelay(url: "smtp://[::1]:25")?.isLoopback == true)
        #expect(SMTPRelay(url: "smtp://127.0.0.1:25")?.hostIsName == false)
        for invalid in ["http://relay", "smtp://", "smtp://relay:0", "smtp://relay:99999", "smtp://relay/path", "smtp://re lay", "smtp://relay?x=1"] {
            #expect(SMTPRelay(url: invalid) == nil, "\(invalid)")
        }
    }

    @Test("retries: doubling from the first delay, at most 15 minutes apart, the last at the window's end, none after it")
    func retries() {
        let policy = MailRetryPolicy(initialDelay: 10, retryFor: 3600)
        #expect(policy.nextAttempt(afterAttempts: 1, queuedAt: 0, now: 0) == 10_000)
        #expect(policy.nextAttempt(afterAttempts: 3, queuedAt: 0, now: 100_000) == 140_000)
        #expect(policy.nextAttempt(afterAttempts: 30, queuedAt: 0, now: 1_000_000) == 1_900_000)
        #expect(policy.nextAttempt(afterAttempts: Int.max, queuedAt: 0, now: 3_000_000) == 3_600_000)
        #expect(policy.nextAttempt(afterAttempts: Int.max, queuedAt: 0, now: 3_600_000) == nil)
        #expect(policy.nextAttempt(afterAttempts: -5, queuedAt: 0, now: 0) == 10_000)
        #expect(policy.nextAttempt(afterAttempts: 1, queuedAt: .max - 5, now: .max - 1) == .max)
        #expect(policy.nextAttempt(afterAttempts: 1, queuedAt: .min, now: 0) == nil)
    }
}
