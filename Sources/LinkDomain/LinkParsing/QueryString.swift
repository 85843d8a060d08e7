/// A URL query string split into its parameters, in order, each name and value percent-decoded once.
///
/// Splits on `&`, then at the first `=`; `+` stays `+` (as the Firebase SDKs read it). Invalid
/// escapes are kept as written rather than rejected: the value is checked where it is used.
struct QueryString: Sendable, Equatable {
    private(set) var items: [(name: String, value: String)] = []

    init(_ query: Substring) {
        for piece in query.split(separator: "&", omittingEmptySubsequences: true) {
            if let equals = piece.firstIndex(of: "=") {
                items.append((Self.percentDecode(piece[..<equals]), Self.percentDecode(piece[piece.index(after: equals)...])))
            } else {
                items.append((Self.percentDecode(piece), ""))
            }
        }
    }

    /// The query of a URL or of a path-and-query: what follows the first `?`, up to any `#`.
    static func of(_ url: Substring) -> Substring {
        guard let mark = url.firstIndex(of: "?") else { return "" }
        let query = url[url.index(after: mark)...]
        return query.firstIndex(of: "#").map { query[..<$0] } ?? query
    }

    /// The first value of `name`.
    subscript(name: String) -> String? {
        items.first { $0.name == name }?.value
    }

    static func == (lhs: QueryString, rhs: QueryString) -> Bool {
        lhs.items.elementsEqual(rhs.items) { $0.name == $1.name && $0.value == $1.value }
    }

    static func percentDecode(_ text: Substring) -> String {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        var pending: [UInt8] = []
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            pending = [byte]
            guard let high = iterator.next() else { bytes += pending; break }
            pending.append(high)
            guard let low = iterator.next() else { bytes += pending; break }
            pending.append(low)
            if let high = hexValue(high), let low = hexValue(low) {
                bytes.append(high << 4 | low)
            } else {
                bytes += pending
            }
        }
        return String(decoding: bytes, as: UTF8.self)
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
