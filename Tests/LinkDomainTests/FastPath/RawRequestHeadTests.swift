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

    @Test("eight bytes at a time find what a byte at a time finds, whatever the neighbouring bytes")
    func wordTests() {
        typealias Word = RawRequestHead.Word
        let fills: [UInt8] = [0x00, 0x09, 0x1F, 0x20, 0x21, 0x61, 0x7E, 0x7F, 0x80, 0xFF]
        var mismatches = 0
        // Every pair of neighbouring bytes, where a borrow could carry from one into the other.
        for first in 0...255 {
            for second in 0...255 {
                var bytes = (0..<8).map { fills[($0 &* 7 &+ first &+ second) % fills.count] }
                bytes[3] = UInt8(first)
                bytes[4] = UInt8(second)
                let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                for limit: UInt8 in [0x01, 0x20, 0x21, 0x80] where Word.hasByte(below: limit, in: word) != bytes.contains(where: { $0 < limit }) {
                    mismatches += 1
                }
                if Word.hasByte(0x7F, in: word) != bytes.contains(0x7F) { mismatches += 1 }
                if Word.hasHighBit(word) != bytes.contains(where: { $0 >= 0x80 }) { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
    }

    @Test("the visible run ends no later than the first byte a byte at a time would look at")
    func visibleRuns() {
        var random = SystemRandomNumberGenerator()
        let alphabet: [UInt8] = Array(0x20...0x7E) + [0x00, 0x09, 0x0D, 0x7F, 0x80, 0xC3, 0xFF]
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0...40, using: &random)).map { _ in
                Bool.random(using: &random) ? UInt8(ascii: "a") : alphabet.randomElement(using: &random)!
            }
            let lower = Int.random(in: 0...bytes.count, using: &random)
            let range = lower..<Int.random(in: lower...bytes.count, using: &random)
            for lowest: UInt8 in [0x20, 0x21] {
                let run = bytes.withUnsafeBytes { RawRequestHead.visibleRun($0, range, lowest: lowest) }
                let firstOutside = range.first { bytes[$0] < lowest || bytes[$0] >= 0x7F } ?? range.upperBound
                #expect(run >= range.lowerBound && run <= firstOutside && firstOutside - run < 8, "\(bytes) \(range) \(lowest)")
            }
        }
    }

    @Test("a target or a value is refused for a bad byte wherever it falls, and kept ASCII or not by its bytes")
    func badBytesAnywhere() throws {
        let agent = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"
        let path = "/__/auth/links?link=https%3A%2F%2Fexample.com%2F__%2Fauth%2Faction%3Fmode%3DsignIn"
        for index in 0..<agent.utf8.count {
            for (bad, outcome) in [("\u{0}", "unsure"), ("\u{7F}", "unsure"), ("\t", "answerable"), ("é", "passed on")] {
                var bytes = Array(agent.utf8)
                bytes.replaceSubrange(index..<(index + 1), with: Array(bad.utf8))
                let request = Array("GET / HTTP/1.1\r\nUser-Agent: ".utf8) + bytes + Array("\r\n\r\n".utf8)
                let read = request.withUnsafeBytes(RawRequestHead.read)
                switch (read, outcome) {
                case (.unsure, "unsure"): break
                case (.head(let head), "answerable") where head.isAnswerable: break
                case (.head(let head), "passed on") where !head.isAnswerable: break
                default: Issue.record("\(bad.debugDescription) at \(index): \(read)")
                }
            }
        }
        for index in 1..<path.utf8.count {
            for bad in [" ", "\u{1}", "\u{7F}", "é"] {
                var bytes = Array(path.utf8)
                bytes.replaceSubrange(index..<(index + 1), with: Array(bad.utf8))
                let request = Array("GET ".utf8) + bytes + Array(" HTTP/1.1\r\n\r\n".utf8)
                #expect(request.withUnsafeBytes(RawRequestHead.read) == .unsure, "\(bad.debugDescription) at \(index)")
            }
        }
        #expect(Self.head("GET \(path) HTTP/1.1\r\nUser-Agent: \(agent)\r\n\r\n")?.isAnswerable == true)
    }

    @Test("fields the answer does not read may repeat or carry any visible byte")
    func otherFields() throws {
        let head = try #require(Self.head("GET / HTTP/1.1\r\nAccept: a\r\nAccept: b\r\nX-Name: Müller\r\nX-Empty:\r\n\r\n"))
        #expect(head.isAnswerable)
    }
}
