#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A query's bytes: the native string it is part of and its UTF-8 offsets there. Both query
/// readers (``QueryString`` and ``LinkParameters``) read them straight from the string's storage
/// (a substring's view costs a generic slice on every lookup, and String.Index arithmetic several
/// times more) and split them the one way below.
package struct QueryBytes: Sendable {
    package let source: String
    package let bounds: Range<Int>

    /// A query as it follows the `?`.
    package init(_ query: Substring) {
        var source = query.base
        var start = source.utf8.distance(from: source.utf8.startIndex, to: query.startIndex)
        if source.utf8.withContiguousStorageIfAvailable({ _ in true }) == nil {
            source = String(decoding: Array(query.utf8), as: UTF8.self)  // not native (bridged): a copy
            start = 0
        }
        self.init(source: source, bounds: start..<(start + query.utf8.count))
    }

    /// `bounds`: UTF-8 offsets in `source`, which callers have made native.
    package init(source: String, bounds: Range<Int>) {
        self.source = source
        self.bounds = bounds
    }

    /// The query's bytes; none when `source` is not contiguous or the bounds are not its own.
    package func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        source.utf8.withContiguousStorageIfAvailable { whole in
            guard bounds.lowerBound >= 0, bounds.upperBound <= whole.count else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
            return body(UnsafeBufferPointer(rebasing: whole[bounds]))
        } ?? body(UnsafeBufferPointer(start: nil, count: 0))
    }

    /// Each parameter's name and value, as offsets into `bytes`, in order: split on `&`, then at
    /// the first `=` (no `=`: an empty value); empty pieces are skipped.
    package static func forEachParameter(in bytes: UnsafeBufferPointer<UInt8>, _ body: (_ name: Range<Int>, _ value: Range<Int>) -> Void) {
        var start = 0
        while start < bytes.count {
            let end = first(UInt8(ascii: "&"), in: start..<bytes.count, of: bytes) ?? bytes.count
            if end > start {
                let equals = first(UInt8(ascii: "="), in: start..<end, of: bytes)
                body(start..<(equals ?? end), equals.map { ($0 + 1)..<end } ?? end..<end)
            }
            start = end + 1
        }
    }

    /// Where `byte` first is in `range` of `bytes`: memchr, as a nested link's value is long and
    /// has no `&` or `=`.
    package static func first(_ byte: UInt8, in range: Range<Int>, of bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = bytes.baseAddress, !range.isEmpty else { return nil }
        return memchr(base + range.lowerBound, Int32(byte), range.count).map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) }
    }
}
