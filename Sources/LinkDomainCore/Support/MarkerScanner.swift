/// Finds which of a fixed set of lower-case ASCII markers occur in a header, ignoring ASCII case,
/// in one pass over its bytes: a table of the markers' first two bytes rules out most positions
/// at once, and at the others only the markers that start with that byte are compared.
///
/// User-agent classification runs on every link click and looks for some fifty markers; searching
/// for each in turn read the header fifty times.
package struct MarkerScanner: Sendable {
    /// At most 64, one bit each in ``scan(_:)``'s answer.
    package let markers: [String]
    /// Every marker's bytes, back to back.
    private let bytes: [UInt8]
    /// Where each marker starts in `bytes`; one more entry marks the end of the last.
    private let starts: [Int]
    /// Marker numbers ordered by first byte, and where each first byte's run starts (257 entries).
    private let byFirstByte: [UInt8]
    private let firstByteStarts: [Int]
    /// One bit for each pair of bytes (first << 8 | second) that starts a marker.
    private let openings: [UInt64]

    package init(_ markers: [String]) {
        precondition(
            markers.count <= 64 && markers.allSatisfy { $0.utf8.count >= 2 && $0.utf8.allSatisfy { $0 < 0x80 && !(0x41...0x5A).contains($0) } },
            "markers are at most 64 lower-case ASCII strings of two bytes or more")
        self.markers = markers
        bytes = markers.flatMap(\.utf8)
        starts = markers.reduce(into: [0]) { $0.append($0.last! + $1.utf8.count) }
        let order = markers.indices.sorted { (markers[$0].utf8.first!, $0) < (markers[$1].utf8.first!, $1) }
        byFirstByte = order.map(UInt8.init)
        firstByteStarts = (0...256).map { byte in order.firstIndex { Int(markers[$0].utf8.first!) >= byte } ?? order.count }
        var openings = [UInt64](repeating: 0, count: 65536 / 64)
        for marker in markers {
            let pair = Int(marker.utf8.first!) << 8 | Int(marker.utf8.dropFirst().first!)
            openings[pair >> 6] |= 1 << UInt64(pair & 63)
        }
        self.openings = openings
    }

    /// Bit `n` is set when `markers[n]` occurs in `text`.
    package func scan(_ text: String) -> UInt64 {
        var text = text
        return text.withUTF8 { scan($0) }
    }

    package func scan(_ text: UnsafeBufferPointer<UInt8>) -> UInt64 {
        guard text.count >= 2 else { return 0 }
        var found: UInt64 = 0
        bytes.withUnsafeBufferPointer { markerBytes in
            openings.withUnsafeBufferPointer { openings in
                var next = Int(text[0].asciiLowercased)
                for position in 0..<(text.count - 1) {
                    let first = next
                    next = Int(text[position + 1].asciiLowercased)
                    let pair = first << 8 | next
                    guard openings[pair >> 6] & (1 << UInt64(pair & 63)) != 0 else { continue }
                    for slot in firstByteStarts[first]..<firstByteStarts[first + 1] {
                        let marker = Int(byFirstByte[slot])
                        guard found & (1 << marker) == 0 else { continue }
                        let start = starts[marker], count = starts[marker + 1] - start
                        guard count <= text.count - position else { continue }
                        var offset = 1
                        while offset < count, text[position + offset].asciiLowercased == markerBytes[start + offset] { offset += 1 }
                        if offset == count { found |= 1 << marker }
                    }
                }
            }
        }
        return found
    }
}
