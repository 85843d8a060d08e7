import LinkDomain
import NIOCore
import NIOEmbedded
import NIOHTTP1

/// Takes arbitrary bytes through ``RawRequestHead`` as a connection's first bytes and holds it to
/// its promises: offsets inside the bytes, and, for every head it reads, NIO's own HTTP decoder
/// reading the same request from the same bytes: the same method and target, and the same end,
/// so that the two can never disagree about where a request stops (request smuggling). The fuzzer
/// (`Fuzz/`) calls it with generated input, the tests with the fuzzer's corpus.
///
/// Returns the first broken promise it finds.
public enum RequestHeadExercise {
    public static func run(_ bytes: [UInt8]) -> String? {
        // The same bytes as a page's form body (what a POST to the pages carries) must not trap.
        _ = PageForm.decode(String(decoding: bytes, as: UTF8.self))
        guard case .head(let head) = bytes.withUnsafeBytes(RawRequestHead.read) else { return nil }
        return check(head, in: bytes)
    }

    /// Whether NIO's decoder reads `bytes` as `head` says.
    package static func check(_ head: RawRequestHead, in bytes: [UInt8]) -> String? {
        guard head.length <= bytes.count, head.length >= 4, bytes[(head.length - 4)..<head.length].elementsEqual("\r\n\r\n".utf8) else {
            return "head of \(head.length) bytes does not end in a blank line"
        }
        for range in [head.target, head.userAgent, head.platformHint, head.ifNoneMatch, head.forwardedProto].compactMap({ $0 })
        where range.upperBound > head.length {
            return "field \(range) outside the head"
        }
        let target = String(decoding: bytes[head.target], as: UTF8.self)
        // NIO's decoder, given the head and then one more request: it must see the first end exactly there.
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(HTTPRequestDecoder()))
        defer { _ = try? channel.finish() }
        do {
            try channel.writeInbound(ByteBuffer(bytes: bytes[..<head.length]))
        } catch {
            return "NIO's decoder refused a head read here: \(error)"
        }
        var parts: [HTTPServerRequestPart] = []
        while let part = try? channel.readInbound(as: HTTPServerRequestPart.self) { parts.append(part) }
        guard parts.count == 2, case .head(let decoded) = parts[0], case .end = parts[1] else {
            return "NIO's decoder read \(parts.count) parts where a whole body-less request ends"
        }
        if decoded.uri != target { return "target \(target.debugDescription), NIO's \(decoded.uri.debugDescription)" }
        if decoded.method != .GET { return "method \(decoded.method) read as GET" }
        if decoded.version != .http1_1 { return "version \(decoded.version)" }
        if head.isAnswerable {
            for (name, range) in [("user-agent", head.userAgent), ("sec-ch-ua-platform", head.platformHint), ("if-none-match", head.ifNoneMatch)] {
                let values = decoded.headers[name]
                let ours = range.map { String(decoding: bytes[$0], as: UTF8.self) }
                if values.count > 1 || values.first != ours { return "\(name): \(ours.debugDescription), NIO's \(values)" }
            }
            if !decoded.isKeepAlive { return "answerable, but NIO would close the connection" }
        }
        return nil
    }
}
