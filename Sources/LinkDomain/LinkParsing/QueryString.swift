#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A URL query string split into its parameters, in order. Names and values stay as received
/// until read: a link's query is looked up for a few names and most of its values are never
/// needed, so each is percent-decoded only when asked for.
///
/// Splits on `&`, then at the first `=`; `+` stays `+` (as the Firebase SDKs read it). Invalid
/// escapes are kept as written rather than rejected: the value is checked where it is used.
struct QueryString: Sendable, Equatable {
    /// One parameter, as UTF-8 offsets into the query.
    fileprivate struct Span: Sendable {
        var name: Range<Int>
        var value: Range<Int>
        /// The name has a `%`: compare it decoded.
        var nameIsEscaped: Bool
    }

    /// The string the query is part of, native and contiguous, and where the query starts in its
    /// UTF-8: its bytes are read straight from the string's storage (a substring's view of them
    /// costs a generic slice on every lookup).
    private let source: String
    private let start: Int
    private let count: Int
    private var spans: [Span] = []

    init(_ query: Substring) {
        var source = query.base
        var start = source.utf8.distance(from: source.utf8.startIndex, to: query.startIndex)
        let count = query.utf8.count
        if source.utf8.withContiguousStorageIfAvailable({ _ in true }) == nil {
            source = String(decoding: Array(query.utf8), as: UTF8.self)  // not native (bridged): a copy
            start = 0
        }
        var spans: [Span] = []
        spans.reserveCapacity(8)
        // Byte offsets into contiguous UTF-8: this runs on every link click, and String.Index
        // arithmetic costs several times more.
        _ = source.utf8.withContiguousStorageIfAvailable { whole in
            let bytes = UnsafeBufferPointer(rebasing: whole[start..<(start + count)])
            guard let base = bytes.baseAddress else { return }
            // memchr over the contiguous bytes: a nested link's value is long and has no `&` or `=`.
            func find(_ byte: UInt8, in range: Range<Int>) -> Int? {
                memchr(base + range.lowerBound, Int32(byte), range.count).map { UnsafePointer<UInt8>(base).distance(to: $0.assumingMemoryBound(to: UInt8.self)) }
            }
            var start = 0
            while start <= bytes.count {
                let end = find(UInt8(ascii: "&"), in: start..<bytes.count) ?? bytes.count
                if end > start {
                    let equals = find(UInt8(ascii: "="), in: start..<end)
                    let name = start..<(equals ?? end)
                    spans.append(Span(name: name, value: equals.map { ($0 + 1)..<end } ?? end..<end,
                                      nameIsEscaped: find(UInt8(ascii: "%"), in: name) != nil))
                }
                start = end + 1
            }
        }
        self.source = source
        self.start = start
        self.count = count
        self.spans = spans
    }

    /// Every parameter, decoded.
    var items: [(name: String, value: String)] {
        withBytes { bytes in
            spans.map { (Self.percentDecode(UnsafeBufferPointer(rebasing: bytes[$0.name])), Self.percentDecode(UnsafeBufferPointer(rebasing: bytes[$0.value]))) }
        }
    }

    /// The first value of `name`, decoded.
    subscript(name: String) -> String? {
        withBytes { bytes in
            first(name, in: bytes).map { Self.percentDecode(UnsafeBufferPointer(rebasing: bytes[$0.value])) }
        }
    }

    /// The first value of each of `names`, decoded, read in one pass over the parameters (a
    /// link's hints are fifteen names, looked up on every click).
    func values(of names: Names) -> Values {
        var found = Values()
        withBytes { bytes in
            for span in spans {
                guard let index = names.index(of: span, in: bytes) else { continue }
                // Made on the first name found: most queries have none of a link's fifteen hints.
                if found.values.isEmpty { found.values = [String?](repeating: nil, count: names.bytes.count) }
                if found.values[index] == nil { found.values[index] = Self.percentDecode(UnsafeBufferPointer(rebasing: bytes[span.value])) }
            }
        }
        return found
    }

    /// What ``values(of:)`` found, by the names' positions.
    struct Values {
        fileprivate var values: [String?] = []

        var isEmpty: Bool { values.isEmpty }

        subscript(index: Int) -> String? {
            values.indices.contains(index) ? values[index] : nil
        }
    }

    /// Parameter names looked up together, as bytes, made once.
    struct Names: Sendable {
        fileprivate let bytes: [[UInt8]]

        init(_ names: [String]) {
            bytes = names.map { Array($0.utf8) }
        }

        fileprivate func index(of span: Span, in query: UnsafeBufferPointer<UInt8>) -> Int? {
            bytes.firstIndex { QueryString.matches(span, $0, in: query) }
        }
    }

    /// Whether `name` is present, with any value.
    func contains(_ name: String) -> Bool {
        withBytes { first(name, in: $0) != nil }
    }

    private func first(_ name: String, in bytes: UnsafeBufferPointer<UInt8>) -> Span? {
        spans.first { Self.matches($0, name.utf8, in: bytes) }
    }

    /// Whether the span's name is `name` (its UTF-8).
    private static func matches(_ span: Span, _ name: some Collection<UInt8>, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if span.nameIsEscaped { return percentDecode(UnsafeBufferPointer(rebasing: bytes[span.name])).utf8.elementsEqual(name) }
        // Lengths first: most names differ in length.
        guard span.name.count == name.count else { return false }
        var index = span.name.lowerBound
        for byte in name {
            guard bytes[index] == byte else { return false }
            index += 1
        }
        return true
    }

    private func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        // Always contiguous: made native at init when it was not.
        source.utf8.withContiguousStorageIfAvailable { body(UnsafeBufferPointer(rebasing: $0[start..<(start + count)])) }
            ?? body(UnsafeBufferPointer(start: nil, count: 0))
    }

    static func == (lhs: QueryString, rhs: QueryString) -> Bool {
        lhs.items.elementsEqual(rhs.items) { $0.name == $1.name && $0.value == $1.value }
    }

    /// The query of a URL or of a path-and-query: what follows the first `?`, up to any `#`.
    static func of(_ url: Substring) -> Substring {
        let utf8 = url.utf8
        let bounds = utf8.withContiguousStorageIfAvailable { bytes -> Range<Int>? in
            guard let mark = bytes.firstIndex(of: UInt8(ascii: "?")) else { return nil }
            return (mark + 1)..<(bytes[(mark + 1)...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.count)
        }
        switch bounds {
        case .some(.some(let range)):
            return Substring(utf8[utf8.index(utf8.startIndex, offsetBy: range.lowerBound)..<utf8.index(utf8.startIndex, offsetBy: range.upperBound)])
        case .some(.none):
            return ""
        case .none:  // a bridged or otherwise non-contiguous string: rare, read it as is
            guard let mark = utf8.firstIndex(of: UInt8(ascii: "?")) else { return "" }
            let query = utf8[utf8.index(after: mark)...]
            return Substring(query.firstIndex(of: UInt8(ascii: "#")).map { query[..<$0] } ?? query)
        }
    }

    static func percentDecode(_ text: Substring) -> String {
        var text = text
        return text.withUTF8 { percentDecode($0) }
    }

    static func percentDecode(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard bytes.contains(UInt8(ascii: "%")) else { return String(decoding: bytes, as: UTF8.self) }
        // Decoded straight into the string's storage (never longer than the escaped form), which
        // repairs invalid UTF-8 as String(decoding:) does.
        return String(unsafeUninitializedCapacity: bytes.count) { decoded in
            var index = 0
            var count = 0
            while index < bytes.count {
                guard bytes[index] == UInt8(ascii: "%") else {
                    decoded[count] = bytes[index]
                    count += 1
                    index += 1
                    continue
                }
                // An invalid or cut-off escape is kept as written, and its bytes are not looked at again.
                let end = min(index + 3, bytes.count)
                if end - index == 3, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                    decoded[count] = high << 4 | low
                    count += 1
                } else {
                    for byte in bytes[index..<end] {
                        decoded[count] = byte
                        count += 1
                    }
                }
                index = end
            }
            return count
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
