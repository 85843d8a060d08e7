/// A URL query string split into its parameters, in order, each name and value percent-decoded once.
///
/// Splits on `&`, then at the first `=`; `+` stays `+` (as the Firebase SDKs read it). Invalid
/// escapes are kept as written rather than rejected: the value is checked where it is used.
struct QueryString: Sendable, Equatable {
    private(set) var items: [(name: String, value: String)] = []

    init(_ query: Substring) {
        // Byte offsets into contiguous UTF-8: this runs on every link click, and String.Index
        // arithmetic costs several times more.
        var query = query
        query.withUTF8 { bytes in
            var start = 0
            while start <= bytes.count {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
                if end > start {
                    let piece = UnsafeBufferPointer(rebasing: bytes[start..<end])
                    if let equals = piece.firstIndex(of: UInt8(ascii: "=")) {
                        items.append((Self.percentDecode(UnsafeBufferPointer(rebasing: piece[..<equals])),
                                      Self.percentDecode(UnsafeBufferPointer(rebasing: piece[(equals + 1)...]))))
                    } else {
                        items.append((Self.percentDecode(piece), ""))
                    }
                }
                start = end + 1
            }
        }
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

    /// The first value of `name`.
    subscript(name: String) -> String? {
        // Lengths first: most names differ in length, and String equality on unequal strings is slow.
        let length = name.utf8.count
        return items.first { $0.name.utf8.count == length && $0.name == name }?.value
    }

    static func == (lhs: QueryString, rhs: QueryString) -> Bool {
        lhs.items.elementsEqual(rhs.items) { $0.name == $1.name && $0.value == $1.value }
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
