import LinkDomainCore
import LinkDomainStorage
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An HTTP/1.1 request head read straight from a connection's bytes, for the requests the event
/// loop answers without NIO's HTTP decoder (``RawRequestHandler``).
///
/// The reader is strict where NIO's decoder is lenient: anything it is not sure of (another HTTP
/// method than GET, another version, a body, a folded or malformed line, a control byte, a head
/// over ``maximumLength``)
/// is ``Reading/unsure``, and the connection's bytes go to NIO's decoder from there on, so the
/// two can never disagree about where a request ends (request smuggling). A well-formed head
/// without a body is a ``Reading/head(_:)``; ``isAnswerable`` says whether it is simple enough to
/// answer here, and the others go to the decoder one request at a time.
package struct RawRequestHead: Equatable {
    package enum Reading: Equatable {
        /// No blank line yet, within the limit: wait for more bytes.
        case incomplete
        case head(RawRequestHead)
        /// Leave this connection to NIO's decoder.
        case unsure
    }

    /// Longer heads are NIO's decoder's to read (and the router's to refuse).
    static let maximumLength = 16 * 1024

    /// The bytes of the head, blank line included.
    package var length = 0
    /// The request target (path and query), as offsets into the bytes read.
    package var target = 0..<0
    package var userAgent: Range<Int>?
    package var platformHint: Range<Int>?
    package var ifNoneMatch: Range<Int>?
    package var forwardedProto: Range<Int>?
    var acceptLanguage: Range<Int>?
    var host: Range<Int>?
    /// The size of the header section as ``AdmissionPolicy/headerBytes(_:)`` counts it.
    var headerBytes = 0
    /// A GET with nothing that needs the router: no `Connection` other than `keep-alive` or
    /// `close`, no `Expect`, no repeated or non-ASCII field among those the answer reads.
    package var isAnswerable = false
    /// `Connection: close`: the answer says so, and the connection ends after it. One click is one
    /// connection, and a client that says so at once saves the server a wait for its close.
    package var closesConnection = false

    /// Reads the head at the start of `bytes`.
    package static func read(_ bytes: UnsafeRawBufferPointer) -> Reading {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return .incomplete }
        let limit = min(bytes.count, maximumLength)
        var head = RawRequestHead()
        var answerable = true
        var lineStart = 0
        var isRequestLine = true
        var sawContentLength = false
        while true {
            guard let found = memchr(base + lineStart, 0x0A, limit - lineStart) else {
                return bytes.count >= maximumLength ? .unsure : .incomplete
            }
            let lineFeed = base.distance(to: UnsafeRawPointer(found))
            // Only CRLF ends a line: a bare LF is read differently by different parsers.
            guard lineFeed > lineStart, bytes[lineFeed - 1] == 0x0D else { return .unsure }
            let line = lineStart..<(lineFeed - 1)
            lineStart = lineFeed + 1
            if isRequestLine {
                guard let target = requestLine(bytes, line) else { return .unsure }
                head.target = target
                isRequestLine = false
                continue
            }
            if line.isEmpty { break }
            guard let (name, value, isASCII) = field(bytes, line) else { return .unsure }
            head.headerBytes += name.count + value.count + 4
            let fieldName = FieldName(bytes, name)
            switch fieldName {
            case .transferEncoding, .upgrade:
                // A body of unknown length, or a switch of protocol after this request: the decoder's.
                return .unsure
            case .contentLength:
                // Only an explicit empty body; anything else is the decoder's.
                guard !sawContentLength, value.count == 1, bytes[value.lowerBound] == UInt8(ascii: "0") else { return .unsure }
                sawContentLength = true
            case .connection:
                if isClose(bytes, value) {
                    head.closesConnection = true
                } else {
                    answerable = answerable && isKeepAlive(bytes, value)
                }
            case .expect:
                answerable = false
            case .userAgent:
                answerable = answerable && isASCII && set(&head.userAgent, value)
            case .platformHint:
                answerable = answerable && isASCII && set(&head.platformHint, value)
            case .ifNoneMatch:
                answerable = answerable && isASCII && set(&head.ifNoneMatch, value)
            case .forwardedProto:
                answerable = answerable && isASCII && set(&head.forwardedProto, value)
            case .acceptLanguage:
                answerable = answerable && isASCII && set(&head.acceptLanguage, value)
            case .host:
                answerable = answerable && isASCII && set(&head.host, value)
            case .other:
                break
            }
        }
        head.length = lineStart
        head.isAnswerable = answerable
        return .head(head)
    }

    /// `GET SP target SP HTTP/1.1`: the target.
    private static func requestLine(_ bytes: UnsafeRawBufferPointer, _ line: Range<Int>) -> Range<Int>? {
        // Plain loops over the buffer: generic slice algorithms cost several times more here.
        var firstSpace = line.lowerBound
        while firstSpace < line.upperBound, bytes[firstSpace] != 0x20 {
            guard isToken(bytes[firstSpace]) else { return nil }
            firstSpace += 1
        }
        let versionLength = 8  // "HTTP/1.1"
        let targetEnd = line.upperBound - versionLength - 1
        guard firstSpace > line.lowerBound, targetEnd > firstSpace + 1, bytes[targetEnd] == 0x20, isVersion11(bytes, at: targetEnd + 1) else {
            return nil
        }
        // A path (origin form; the other forms are the decoder's), in visible ASCII only: no spaces,
        // controls or raw non-ASCII bytes.
        guard bytes[firstSpace + 1] == UInt8(ascii: "/") else { return nil }
        let target = (firstSpace + 1)..<targetEnd
        for index in visibleRun(bytes, target, lowest: 0x21)..<targetEnd where bytes[index] <= 0x20 || bytes[index] >= 0x7F { return nil }
        // GET only: every other method (NIO's decoder knows a fixed list, and refuses the rest) is
        // the decoder's from here on.
        let start = line.lowerBound
        guard firstSpace - start == 3, bytes[start] == UInt8(ascii: "G"), bytes[start + 1] == UInt8(ascii: "E"), bytes[start + 2] == UInt8(ascii: "T")
        else { return nil }
        return target
    }

    private static func isVersion11(_ bytes: UnsafeRawBufferPointer, at start: Int) -> Bool {
        var index = start
        for byte in "HTTP/1.1".utf8 {
            guard bytes[index] == byte else { return false }
            index += 1
        }
        return true
    }

    /// `name: value`, the value without its leading spaces and tabs, and whether the value is ASCII.
    private static func field(_ bytes: UnsafeRawBufferPointer, _ line: Range<Int>) -> (Range<Int>, Range<Int>, isASCII: Bool)? {
        var colon = line.lowerBound
        while colon < line.upperBound, bytes[colon] != UInt8(ascii: ":") {
            guard isToken(bytes[colon]) else { return nil }
            colon += 1
        }
        guard colon < line.upperBound, colon > line.lowerBound else { return nil }
        // Leading spaces and tabs are not the value's; trailing ones stay, as NIO's decoder keeps them.
        var start = colon + 1
        let end = line.upperBound
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        // Field content: visible bytes, spaces and tabs; no other control byte (NUL, CR, DEL).
        var isASCII = true
        for index in visibleRun(bytes, start..<end, lowest: 0x20)..<end {
            let byte = bytes[index]
            if (byte < 0x20 && byte != 0x09) || byte == 0x7F { return nil }
            if byte >= 0x80 { isASCII = false }
        }
        return (line.lowerBound..<colon, start..<end, isASCII)
    }

    private static func set(_ field: inout Range<Int>?, _ value: Range<Int>) -> Bool {
        guard field == nil else { return false }  // repeated: the router reads it as one joined value
        field = value
        return true
    }

    private static func isKeepAlive(_ bytes: UnsafeRawBufferPointer, _ value: Range<Int>) -> Bool {
        value.count == 10 && equalsIgnoringCase(bytes, value, "keep-alive")
    }

    private static func isClose(_ bytes: UnsafeRawBufferPointer, _ value: Range<Int>) -> Bool {
        value.count == 5 && equalsIgnoringCase(bytes, value, "close")
    }

    /// Whether the bytes are `lowercase` in any case (for tokens and field values, in which no other
    /// byte maps onto a letter or `-` by setting its 0x20 bit).
    /// `lowercase` is a literal read from its own bytes: a `String`'s UTF-8 view is walked through
    /// its generic iterator.
    fileprivate static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, _ lowercase: StaticString) -> Bool {
        lowercase.withUTF8Buffer { expected in
            guard expected.count <= range.count else { return false }
            var index = range.lowerBound
            for byte in expected {
                guard bytes[index] | 0x20 == byte else { return false }
                index += 1
            }
            return true
        }
    }

    /// RFC 9110's `tchar`.
    static func isToken(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"),
            UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// The fields the reader looks at, recognised without allocating.
    private enum FieldName {
        case transferEncoding, contentLength, connection, expect, upgrade, userAgent, platformHint, ifNoneMatch, forwardedProto, acceptLanguage
        case host, other

        /// Compared with one or two names at most, by the name's length (no list of candidates is
        /// made: an array per line was a quarter of reading a head).
        init(_ bytes: UnsafeRawBufferPointer, _ name: Range<Int>) {
            func named(_ candidate: StaticString) -> Bool { RawRequestHead.equalsIgnoringCase(bytes, name, candidate) }
            self =
                switch name.count {
                case 4 where named("host"): .host
                case 6 where named("expect"): .expect
                case 7 where named("upgrade"): .upgrade
                case 10 where named("user-agent"): .userAgent
                case 10 where named("connection"): .connection
                case 13 where named("if-none-match"): .ifNoneMatch
                case 14 where named("content-length"): .contentLength
                case 15 where named("accept-language"): .acceptLanguage
                case 17 where named("transfer-encoding"): .transferEncoding
                case 17 where named("x-forwarded-proto"): .forwardedProto
                case 18 where named("sec-ch-ua-platform"): .platformHint
                default: .other
                }
        }
    }
}
