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
package struct QueryString: Sendable, Equatable {
    /// One parameter, as UTF-8 offsets into the query.
    fileprivate struct Span: Sendable {
        package var name: Range<Int>
        package var value: Range<Int>
        /// The name has a `%`: compare it decoded.
        package var nameIsEscaped: Bool

        package init(name: Range<Int>, value: Range<Int>, nameIsEscaped: Bool) {
            self.name = name
            self.value = value
            self.nameIsEscaped = nameIsEscaped
        }
    }

    private let query: QueryBytes
    private var spans: [Span] = []

    package init(_ query: Substring) {
        self.query = QueryBytes(query)
        var spans: [Span] = []
        spans.reserveCapacity(8)
        self.query.withBytes { bytes in Self.forEachSpan(in: bytes) { spans.append($0) } }
        self.spans = spans
    }

    /// Each parameter of `bytes` as a span, in order.
    private static func forEachSpan(in bytes: UnsafeBufferPointer<UInt8>, _ body: (Span) -> Void) {
        QueryBytes.forEachParameter(in: bytes) { name, value in
            body(Span(name: name, value: value, nameIsEscaped: QueryBytes.first(UInt8(ascii: "%"), in: name, of: bytes) != nil))
        }
    }

    /// Every parameter, decoded.
    package var items: [(name: String, value: String)] {
        withBytes { bytes in
            spans.map {
                (Self.percentDecode(UnsafeBufferPointer(rebasing: bytes[$0.name])), Self.percentDecode(UnsafeBufferPointer(rebasing: bytes[$0.value])))
            }
        }
    }

    /// ``items`` as a person reads them on the debug page and in the console: the text a person wrote
    /// into a Dynamic Link (`st`, `sd`, `utm_*`) with `+` as a space, as Google's servers read it;
    /// every other value as written (docs/wire-formats.md, "Text parameters").
    package var readableItems: [(name: String, value: String)] {
        withBytes { bytes in
            spans.map { span in
                let name = Self.percentDecode(UnsafeBufferPointer(rebasing: bytes[span.name]))
                let value = UnsafeBufferPointer(rebasing: bytes[span.value])
                return (name, Self.isText(name) ? Self.formDecode(value) : Self.percentDecode(value))
            }
        }
    }

    /// The parameters that hold text a person wrote, read with `+` as a space.
    package static func isText(_ name: String) -> Bool {
        name == "st" || name == "sd" || name.hasPrefix("utm_")
    }

    /// An `application/x-www-form-urlencoded` body's fields (`+` meaning a space); a pair without a
    /// name is skipped, a repeated name keeps its first value.
    @inlinable
    package static func formFields(_ bytes: some Collection<UInt8>) -> [String: String] {
        formFields(spaced: bytes.map(plusAsSpace))
    }

    /// A form's byte with `+` read as the space it stands for.
    @usableFromInline
    package static func plusAsSpace(_ byte: UInt8) -> UInt8 { byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte }

    @usableFromInline
    package static func formFields(spaced bytes: [UInt8]) -> [String: String] {
        let spaced = String(decoding: bytes, as: UTF8.self)
        var fields: [String: String] = [:]
        for (name, value) in QueryString(Substring(spaced)).items where !name.isEmpty && fields[name] == nil {
            fields[name] = value
        }
        return fields
    }

    /// The first value of `name`, decoded.
    package subscript(name: String) -> String? {
        withBytes { bytes in
            first(name, in: bytes).map { Self.percentDecode(UnsafeBufferPointer(rebasing: bytes[$0.value])) }
        }
    }

    /// Whether `query` has a parameter `name`, with any value: what ``subscript(name:)`` finds,
    /// without keeping every parameter's place to find it.
    package static func has(_ name: String, in query: Substring) -> Bool {
        var found = false
        QueryBytes(query).withBytes { bytes in
            forEachSpan(in: bytes) { span in
                if !found { found = matches(span, name.utf8, in: bytes) }
            }
        }
        return found
    }

    private func first(_ name: String, in bytes: UnsafeBufferPointer<UInt8>) -> Span? {
        spans.first { Self.matches($0, name.utf8, in: bytes) }
    }

    /// Whether the span's name is `name` (its UTF-8).
    private static func matches(_ span: Span, _ name: String.UTF8View, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
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
        query.withBytes(body)
    }

    package static func == (lhs: QueryString, rhs: QueryString) -> Bool {
        lhs.items.elementsEqual(rhs.items) { $0.name == $1.name && $0.value == $1.value }
    }

    /// The first value of `name` as form text: `+` is a space, then escapes are decoded
    /// (docs/wire-formats.md, "Text parameters").
    package func text(_ name: String) -> String? {
        withBytes { bytes in first(name, in: bytes).map { Self.formDecode(UnsafeBufferPointer(rebasing: bytes[$0.value])) } }
    }

    /// `bytes` as form text: each `+` a space, then escapes decoded (`%2B` stays a plus).
    package static func formDecode(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard bytes.contains(UInt8(ascii: "+")) else { return percentDecode(bytes) }
        return bytes.map(plusAsSpace).withUnsafeBufferPointer(percentDecode)
    }

    package static func percentDecode(_ text: Substring) -> String {
        var text = text
        return text.withUTF8 { percentDecode($0) }
    }

    package static func percentDecode(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard bytes.contains(UInt8(ascii: "%")) else { return String(decoding: bytes, as: UTF8.self) }
        // Decoded straight into the string's storage (never longer than the escaped form), which
        // repairs invalid UTF-8 as String(decoding:) does.
        return String(unsafeUninitializedCapacity: bytes.count) { decoded in
            guard let source = bytes.baseAddress, let target = decoded.baseAddress else { return 0 }
            var index = 0
            var count = 0
            while index < bytes.count {
                // Eight bytes at a time while they hold no `%` (a nested link is long); the first
                // `%` of a word is its lowest byte found by the zero-byte test.
                var plain = 0
                if bytes.count - index >= 8 {
                    let raw = UnsafeRawPointer(source + index).loadUnaligned(as: UInt64.self)
                    let differences = UInt64(littleEndian: raw) ^ 0x2525_2525_2525_2525
                    let percents = (differences &- 0x0101_0101_0101_0101) & ~differences & 0x8080_8080_8080_8080
                    plain = percents == 0 ? 8 : percents.trailingZeroBitCount / 8
                    // The whole word is stored (the output is never ahead of the input, so it fits);
                    // bytes past the plain ones are written over next.
                    UnsafeMutableRawPointer(target + count).storeBytes(of: raw, as: UInt64.self)
                } else {
                    while index + plain < bytes.count, bytes[index + plain] != UInt8(ascii: "%") {
                        decoded[count + plain] = bytes[index + plain]
                        plain += 1
                    }
                }
                count += plain
                index += plain
                guard index < bytes.count, bytes[index] == UInt8(ascii: "%") else { continue }
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
        // Two comparisons: a digit, or a letter whatever its case (`| 0x20` lowers A–F).
        let digit = byte &- UInt8(ascii: "0")
        if digit < 10 { return digit }
        let letter = (byte | 0x20) &- UInt8(ascii: "a")
        return letter < 6 ? letter + 10 : nil
    }
}
