import Foundation
import HTTPTypes
@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage
import Logging
import Synchronization
import Testing

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

    @Test("a request's line written from its values is the line its event gives", arguments: [LineLogHandler.Format.text, .json])
    func requestLine(format: LineLogHandler.Format) throws {
        // The time differs between the two lines by when each was written.
        let time = try Regex(#"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z"#)
        let handlerMetadata: [Logger.Metadata] = [[:], ["hb.request.id": "42", "path": "shadowed", "level": "x", "z\u{1B}": "\"q\""]]
        for own in handlerMetadata {
            for (path, duration) in [
                ("/__/auth/links", Duration.microseconds(1234)), ("/.well-known/assetlinks.json", .zero),
                ("/x", .seconds(3601)), ("/a\"b\\c\u{1B}[2J\u{2028}é", .microseconds(7)),
            ] {
                let written = Mutex<[String]>([])
                var handler = LineLogHandler(format: format, label: "linkdomain", level: .info, write: { line in written.withLock { $0.append(line) } })
                handler.metadata = own
                // A handler that is not a LineLogHandler gets the event, which it passes on.
                let direct = Logger(label: "linkdomain", factory: { _ in handler })
                let viaEvent = Logger(label: "linkdomain", factory: { _ in MultiplexLogHandler([handler]) })
                RequestLog.record(direct, method: .get, path: path, status: 303, duration: duration)
                RequestLog.record(viaEvent, method: .get, path: path, status: 303, duration: duration)
                let lines = written.withLock { $0 }.map { $0.replacing(time, with: "TIME") }
                #expect(lines.count == 2)
                #expect(lines.first == lines.last, "\(own) \(path.debugDescription)")
                #expect(lines.first?.contains("duration_ms") == true)
            }
        }
    }

    @Test("plain text passes unchanged")
    func plain() {
        #expect(LineLogHandler.escapingControlCharacters("request path=/__/auth/action é") == "request path=/__/auth/action é")
    }
}

@Suite("Log lines on standard error")
struct BufferedLogOutputTests {
    /// What a pipe holds now, without waiting.
    static func drain(_ descriptor: Int32) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("request lines wait to be written together; any other line writes them first, then itself; a flush or the delay writes them")
    func gathering() async throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        _ = fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK)
        let output = BufferedLogOutput(descriptor: ends[1])
        output.write("request 1\n", gather: true)
        output.write("request 2\n", gather: true)
        #expect(Self.drain(ends[0]) == "")
        output.write("warning\n", gather: false)
        #expect(Self.drain(ends[0]) == "request 1\nrequest 2\nwarning\n")
        output.write("request 3\n", gather: true)
        output.flush()
        #expect(Self.drain(ends[0]) == "request 3\n")
        output.write("request 4\n", gather: true)
        try await Task.sleep(for: .milliseconds(300))
        #expect(Self.drain(ends[0]) == "request 4\n")
        output.write(String(repeating: "x", count: BufferedLogOutput.limit) + "\n", gather: true)
        #expect(Self.drain(ends[0]).utf8.count == BufferedLogOutput.limit + 1)
    }
}
