/// A QR code (ISO/IEC 18004) of some bytes: byte mode, error correction level M, versions 1 to 20
/// (up to 666 bytes), the mask with the lowest penalty. Drawn by the server for the pages' "Open on
/// your phone", so no image is fetched from anywhere.
package struct QRCode: Equatable {
    /// Modules per side.
    package let size: Int
    /// Row by row: true is dark.
    package let modules: [Bool]

    package func isDark(x: Int, y: Int) -> Bool { modules[y * size + x] }

    /// The dark modules as SVG path data, one unit square each, inside a quiet zone of `margin`
    /// modules: digits and path commands only, so it is the same escaped or not.
    package func svgPath(margin: Int = 4) -> String {
        var path = ""
        for y in 0..<size {
            for x in 0..<size where isDark(x: x, y: y) { path += "M\(x + margin) \(y + margin)h1v1h-1z" }
        }
        return path
    }

    /// Error-correction blocks at level M: codewords per block, then (blocks, data codewords each) of each group.
    private static let blocks: [(ecc: Int, groups: [(count: Int, data: Int)])] = [
        (10, [(1, 16)]), (16, [(1, 28)]), (26, [(1, 44)]), (18, [(2, 32)]), (24, [(2, 43)]),
        (16, [(4, 27)]), (18, [(4, 31)]), (22, [(2, 38), (2, 39)]), (22, [(3, 36), (2, 37)]), (26, [(4, 43), (1, 44)]),
        (30, [(1, 50), (4, 51)]), (22, [(6, 36), (2, 37)]), (22, [(8, 37), (1, 38)]), (24, [(4, 40), (5, 41)]), (24, [(5, 41), (5, 42)]),
        (28, [(7, 45), (3, 46)]), (28, [(10, 46), (1, 47)]), (26, [(9, 43), (4, 44)]), (26, [(3, 44), (11, 45)]), (26, [(3, 41), (13, 42)]),
    ]

    /// The centres of the alignment patterns, by version (none at version 1).
    private static let alignment: [[Int]] = [
        [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50],
        [6, 30, 54], [6, 32, 58], [6, 34, 62], [6, 26, 46, 66], [6, 26, 48, 70], [6, 26, 50, 74], [6, 30, 54, 78], [6, 30, 56, 82],
        [6, 30, 58, 86], [6, 34, 62, 90],
    ]

    /// The code for `bytes`, or nil when they do not fit version 20.
    package init?(_ bytes: [UInt8]) {
        guard let version = (1...20).first(where: { Self.capacity($0) >= Self.dataBits($0, byteCount: bytes.count) }) else { return nil }
        let codewords = Self.interleaved(Self.dataCodewords(bytes, version: version), version: version)
        var matrix = QRMatrix(version: version)
        matrix.drawFunctionPatterns(alignment: Self.alignment[version - 1])
        matrix.place(codewords)
        var best: (penalty: Int, matrix: QRMatrix)?
        for mask in 0..<8 {
            var candidate = matrix
            candidate.apply(mask: mask)
            candidate.drawFormat(mask: mask)
            let penalty = candidate.penalty()
            if best.map({ penalty < $0.penalty }) ?? true { best = (penalty, candidate) }
        }
        guard let chosen = best?.matrix else { return nil }
        size = chosen.size
        modules = chosen.dark
    }

    /// Data codewords a version holds at level M.
    private static func capacity(_ version: Int) -> Int {
        blocks[version - 1].groups.reduce(0) { $0 + $1.count * $1.data } * 8
    }

    private static func dataBits(_ version: Int, byteCount: Int) -> Int {
        4 + (version < 10 ? 8 : 16) + byteCount * 8
    }

    private static func dataCodewords(_ bytes: [UInt8], version: Int) -> [UInt8] {
        var bits = QRBitWriter()
        bits.append(0b0100, count: 4)
        bits.append(bytes.count, count: version < 10 ? 8 : 16)
        for byte in bytes { bits.append(Int(byte), count: 8) }
        let capacity = capacity(version)
        bits.append(0, count: min(4, capacity - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var codewords = bits.bytes
        var pad: UInt8 = 0xEC
        while codewords.count * 8 < capacity {
            codewords.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return codewords
    }

    /// Data and error-correction codewords, block by block, interleaved as the standard lays them out.
    private static func interleaved(_ data: [UInt8], version: Int) -> [UInt8] {
        let layout = blocks[version - 1]
        var dataBlocks: [[UInt8]] = []
        var offset = 0
        for group in layout.groups {
            for _ in 0..<group.count {
                dataBlocks.append(Array(data[offset..<(offset + group.data)]))
                offset += group.data
            }
        }
        let generator = QRReedSolomon.generator(degree: layout.ecc)
        let eccBlocks = dataBlocks.map { QRReedSolomon.remainder($0, generator: generator) }
        var result: [UInt8] = []
        for index in 0..<(dataBlocks.map(\.count).max() ?? 0) {
            for block in dataBlocks where index < block.count { result.append(block[index]) }
        }
        for index in 0..<layout.ecc {
            for block in eccBlocks { result.append(block[index]) }
        }
        return result
    }
}
