/// The head reader's look at eight bytes at once.
extension RawRequestHead {
    /// Where the bytes of `range` stop being all of `lowest`...0x7E (visible ASCII, and the space
    /// when `lowest` is 0x20), read eight at a time: only the bytes from there on need a closer
    /// look. Field values and the target are most of a head's bytes, and a byte at a time cost a
    /// user agent several hundred instructions.
    static func visibleRun(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, lowest: UInt8) -> Int {
        var index = range.lowerBound
        while range.upperBound - index >= 8 {
            let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if Word.hasByte(below: lowest, in: word) || Word.hasByte(0x7F, in: word) || Word.hasHighBit(word) { return index }
            index += 8
        }
        return index
    }

    /// Tests of eight bytes at once, each exact for the word as a whole: a borrow carries from one
    /// byte into the next only when the first already matched.
    enum Word {
        static let ones: UInt64 = 0x0101_0101_0101_0101
        static let highBits: UInt64 = 0x8080_8080_8080_8080

        /// Whether a byte of `word` is below `limit`, which is at most 0x80.
        @inline(__always) static func hasByte(below limit: UInt8, in word: UInt64) -> Bool {
            (word &- ones &* UInt64(limit)) & ~word & highBits != 0
        }

        @inline(__always) static func hasByte(_ byte: UInt8, in word: UInt64) -> Bool {
            hasByte(below: 1, in: word ^ (ones &* UInt64(byte)))
        }

        @inline(__always) static func hasHighBit(_ word: UInt64) -> Bool { word & highBits != 0 }
    }
}
