import Foundation

/// A header's bytes with ASCII letters lower-cased, searched for lower-case ASCII markers.
struct LowercasedBytes {
    let bytes: [UInt8]

    init(_ text: String) {
        bytes = text.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }
    }

    func contains(_ marker: StaticString) -> Bool {
        marker.withUTF8Buffer { contains($0) }
    }

    func contains(_ marker: [UInt8]) -> Bool {
        marker.withUnsafeBufferPointer { contains($0) }
    }

    func contains(_ marker: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = marker.first, marker.count <= bytes.count else { return marker.isEmpty }
        return bytes.withUnsafeBufferPointer { haystack in
            var start = 0
            let last = haystack.count - marker.count
            while start <= last {
                if haystack[start] == first, memcmp(haystack.baseAddress! + start, marker.baseAddress!, marker.count) == 0 { return true }
                start += 1
            }
            return false
        }
    }
}
