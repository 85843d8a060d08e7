import Foundation
import Logging
import Synchronization
import Testing

@testable import LinkDomain

@Suite("Log lines")
struct LineLogHandlerTests {
    /// The lines a handler of `format` writes for one event whose message and metadata carry control characters.
    func lines(_ format: LineLogHandler.Format) -> String {
        let written = Mutex("")
        let handler = LineLogHandler(format: format, label: "test", level: .info, write: { line in written.withLock { $0 += line } })
        var logger = Logger(label: "test", factory: { _ in handler })
        logger[metadataKey: "path"] = "/a\u{1B}[2J\nforged 200"
        logger.info("link for \u{1B}]0;owned\u{07}x@example.com\u{2028}", metadata: ["c1": "\u{9B}31m"])
        return written.withLock { $0 }
    }

    @Test("control characters are escaped in text lines: one line, no escape sequence", arguments: [LineLogHandler.Format.text, .json])
    func escapes(format: LineLogHandler.Format) throws {
        let output = lines(format)
        #expect(output.filter { $0 == "\n" }.count == 1)
        #expect(!output.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        #expect(!output.unicodeScalars.contains { (0x7F...0x9F).contains($0.value) || $0.value == 0x2028 })
        if format == .text {
            #expect(output.contains("link for \\u{1B}]0;owned\\u{7}x@example.com\\u{2028}"))
            #expect(output.contains("path=/a\\u{1B}[2J\\u{A}forged 200"))
        } else {
            let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
            #expect(object?["message"] as? String == "link for \\u{1B}]0;owned\\u{7}x@example.com\\u{2028}")
            #expect(object?["c1"] as? String == "\\u{9B}31m")
        }
    }

    @Test("plain text passes unchanged")
    func plain() {
        #expect(LineLogHandler.escapingControlCharacters("request path=/__/auth/action é") == "request path=/__/auth/action é")
    }
}
