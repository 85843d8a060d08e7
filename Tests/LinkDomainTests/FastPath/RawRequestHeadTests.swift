import HTTPTypes
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Request heads read from the connection's bytes")
struct RawRequestHeadTests {
    static func read(_ text: String) -> RawRequestHead.Reading {
        Array(text.utf8).withUnsafeBytes(RawRequestHead.read)
    }

    static func head(_ text: String) -> RawRequestHead? {
        if case .head(let head) = read(text) { return head }
        return nil
    }

    static func field(_ text: String, _ range: Range<Int>?) -> String? {
        range.map { String(decoding: Array(text.utf8)[$0], as: UTF8.self) }
    }

    @Test("a GET: its target, the fields an answer reads, its length and header size as the limits count them")
    func simpleGet() throws {
        let request =
            "GET /?link=x&efr=1 HTTP/1.1\r\nHost: links.example.com\r\nuser-AGENT:  Mozilla/5.0 (X11)\r\nSec-CH-UA-Platform: \"Android\"\r\n"
            + "If-None-Match: \"abc\"\r\nX-Forwarded-Proto: https\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n"
        let head = try #require(Self.head(request + "GET /next HTTP/1.1\r\n"))
        #expect(head.isAnswerable)
        #expect(head.length == request.utf8.count)
        #expect(Self.field(request, head.target) == "/?link=x&efr=1")
        #expect(Self.field(request, head.userAgent) == "Mozilla/5.0 (X11)")
        #expect(Self.field(request, head.platformHint) == "\"Android\"")
        #expect(Self.field(request, head.ifNoneMatch) == "\"abc\"")
        #expect(Self.field(request, head.forwardedProto) == "https")
        let fields = HTTPFields([
            HTTPField(name: HTTPField.Name("Host")!, value: "links.example.com"), HTTPField(name: HTTPField.Name("user-AGENT")!, value: "Mozilla/5.0 (X11)"),
            HTTPField(name: .secCHUAPlatform, value: "\"Android\""), HTTPField(name: .ifNoneMatch, value: "\"abc\""),
            HTTPField(name: .xForwardedProto, value: "https"), HTTPField(name: .connection, value: "Keep-Alive"),
            HTTPField(name: .contentLength, value: "0"),
        ])
        #expect(head.headerBytes == AdmissionPolicy.headerBytes(fields))
    }

    @Test("a head still arriving waits; one longer than the limit goes to NIO's decoder")
    func incomplete() {
        #expect(Self.read("") == .incomplete)
        #expect(Self.read("GET / HTTP/1.1\r\nHost: x\r\n") == .incomplete)
        #expect(Self.read("GET / HTTP/1.1\r\nHost: x\r\n\r") == .incomplete)
        let long = "GET / HTTP/1.1\r\nX-Long: " + String(repeating: "a", count: RawRequestHead.maximumLength)
        #expect(Self.read(long) == .unsure)
    }

    @Test(
        "anything NIO's decoder might read differently is left to it for the rest of the connection",
        arguments: [
            "GET / HTTP/1.0\r\n\r\n", "GET / HTTP/2.0\r\n\r\n", "GET /  HTTP/1.1\r\n\r\n", "GET / HTTP/1.1 \r\n\r\n", "\r\nGET / HTTP/1.1\r\n\r\n",
            "GET / HTTP/1.1\nHost: x\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\n\r\n", "GET / HTTP/1.1\r\nHost: x\r\n\n",
            "GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", "GET / HTTP/1.1\r\nHost : x\r\n\r\n", "GET / HTTP/1.1\r\n: x\r\n\r\n",
            "GET / HTTP/1.1\r\nHost x\r\n\r\n", "GET / HTTP/1.1\r\nX-A: a\u{0}b\r\n\r\n", "GET / HTTP/1.1\r\nX-A: a\rb\r\n\r\n",
            "GET / HTTP/1.1\r\nX-A: \u{7F}\r\n\r\n", "GET /\u{1} HTTP/1.1\r\n\r\n", "GET %0d%0a/abc HTTP/1.1\r\n\r\n", "GET * HTTP/1.1\r\n\r\n",
            "GET http://links.example.com/ HTTP/1.1\r\n\r\n", "GET /é HTTP/1.1\r\n\r\n", "G(T / HTTP/1.1\r\n\r\n",
            "GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "GET / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello",
            "GET / HTTP/1.1\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n", "GET / HTTP/1.1\r\nContent-Length: 00\r\n\r\n",
            "POST /v1/shortLinks HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}", "HEAD / HTTP/1.1\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n", "FOO / HTTP/1.1\r\n\r\n",
            "GET / HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n", "GET / HTTP/1.1\r\nupgrade: websocket\r\n\r\n",
        ])
    func unsure(_ request: String) {
        #expect(Self.read(request) == .unsure, "\(request.debugDescription)")
    }

    @Test(
        "well-formed requests an answer here cannot take are passed on one at a time",
        arguments: [
            "GET / HTTP/1.1\r\nConnection: close, keep-alive\r\n\r\n", "GET / HTTP/1.1\r\nConnection: closed\r\n\r\n",
            "GET / HTTP/1.1\r\nConnection: keep-alive, Upgrade\r\n\r\n",
            "GET / HTTP/1.1\r\nExpect: 100-continue\r\n\r\n", "GET / HTTP/1.1\r\nUser-Agent: a\r\nUser-Agent: b\r\n\r\n",
            "GET / HTTP/1.1\r\nUser-Agent: Navigateur é\r\n\r\n", "GET / HTTP/1.1\r\nIf-None-Match: \"a\"\r\nif-none-match: \"b\"\r\n\r\n",
        ])
    func passedOn(_ request: String) throws {
        let head = try #require(Self.head(request), "\(request.debugDescription)")
        #expect(!head.isAnswerable, "\(request.debugDescription)")
        #expect(head.length == request.utf8.count)
    }

    @Test(
        "Connection: close in any case is answered here and ends the connection; keep-alive or none keeps it",
        arguments: [
            ("GET / HTTP/1.1\r\nConnection: close\r\n\r\n", true), ("GET / HTTP/1.1\r\nconnection:CLOSE\r\n\r\n", true),
            ("GET / HTTP/1.1\r\nConnection: keep-alive\r\nConnection: Close\r\n\r\n", true),
            ("GET / HTTP/1.1\r\nConnection: keep-alive\r\n\r\n", false), ("GET / HTTP/1.1\r\nHost: a\r\n\r\n", false),
        ])
    func close(_ request: String, closes: Bool) throws {
        let head = try #require(Self.head(request), "\(request.debugDescription)")
        #expect(head.isAnswerable)
        #expect(head.closesConnection == closes)
    }

    @Test("fields the answer does not read may repeat or carry any visible byte")
    func otherFields() throws {
        let head = try #require(Self.head("GET / HTTP/1.1\r\nAccept: a\r\nAccept: b\r\nX-Name: Müller\r\nX-Empty:\r\n\r\n"))
        #expect(head.isAnswerable)
    }
}
