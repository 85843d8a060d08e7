// The parts of a QR code's drawing (``QRCode``): its bits, its error correction, its module grid.

/// Bits appended most significant first.
package struct QRBitWriter {
    package private(set) var bytes: [UInt8] = []
    package private(set) var count = 0

    package mutating func append(_ value: Int, count bitCount: Int) {
        for shift in stride(from: bitCount - 1, through: 0, by: -1) {
            if count % 8 == 0 { bytes.append(0) }
            if (value >> shift) & 1 == 1 { bytes[count / 8] |= 0x80 >> UInt8(count % 8) }
            count += 1
        }
    }
}

/// Reed–Solomon over GF(256) with the QR polynomial x⁸ + x⁴ + x³ + x² + 1.
package enum QRReedSolomon {
    package static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        var result: UInt8 = 0
        var a = a, b = b
        while b != 0 {
            if b & 1 == 1 { result ^= a }
            let carry = a & 0x80 != 0
            a <<= 1
            if carry { a ^= 0x1D }
            b >>= 1
        }
        return result
    }

    /// The generator polynomial's coefficients (leading 1 left out), highest degree first.
    package static func generator(degree: Int) -> [UInt8] {
        var coefficients = [UInt8](repeating: 0, count: degree)
        coefficients[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for index in 0..<degree {
                coefficients[index] = multiply(coefficients[index], root)
                if index + 1 < degree { coefficients[index] ^= coefficients[index + 1] }
            }
            root = multiply(root, 0x02)
        }
        return coefficients
    }

    package static func remainder(_ data: [UInt8], generator: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: generator.count)
        for byte in data {
            let factor = byte ^ result.removeFirst()
            result.append(0)
            for index in result.indices { result[index] ^= multiply(generator[index], factor) }
        }
        return result
    }
}

/// The module grid while it is drawn.
package struct QRMatrix {
    package let version: Int
    package let size: Int
    package var dark: [Bool]
    /// Modules of the function patterns (finders, timing, alignment, format and version areas).
    package var reserved: [Bool]

    package init(version: Int) {
        self.version = version
        size = version * 4 + 17
        dark = Array(repeating: false, count: size * size)
        reserved = Array(repeating: false, count: size * size)
    }

    package mutating func set(_ x: Int, _ y: Int, _ value: Bool) {
        dark[y * size + x] = value
        reserved[y * size + x] = true
    }

    package mutating func drawFunctionPatterns(alignment: [Int]) {
        for index in 0..<size {
            set(6, index, index % 2 == 0)
            set(index, 6, index % 2 == 0)
        }
        for (x, y) in [(3, 3), (size - 4, 3), (3, size - 4)] { drawFinder(x, y) }
        let last = alignment.count - 1
        for (i, x) in alignment.enumerated() {
            for (j, y) in alignment.enumerated() where !((i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0)) {
                for dy in -2...2 {
                    for dx in -2...2 { set(x + dx, y + dy, max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
        drawFormat(mask: 0)  // reserves the areas; drawn again with the chosen mask
        drawVersion()
    }

    private mutating func drawFinder(_ cx: Int, _ cy: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let x = cx + dx, y = cy + dy
                guard (0..<size).contains(x), (0..<size).contains(y) else { continue }
                let distance = max(abs(dx), abs(dy))
                set(x, y, distance != 2 && distance != 4)
            }
        }
    }

    package mutating func drawFormat(mask: Int) {
        // Level M is 00; 15 bits with their BCH code, masked with 101010000010010.
        let data = mask
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        let bits = (data << 10 | remainder) ^ 0x5412
        func bit(_ index: Int) -> Bool { (bits >> index) & 1 == 1 }
        for index in 0...5 { set(8, index, bit(index)) }
        set(8, 7, bit(6))
        set(8, 8, bit(7))
        set(7, 8, bit(8))
        for index in 9..<15 { set(14 - index, 8, bit(index)) }
        for index in 0..<8 { set(size - 1 - index, 8, bit(index)) }
        for index in 8..<15 { set(8, size - 15 + index, bit(index)) }
        set(8, size - 8, true)  // the dark module
    }

    private mutating func drawVersion() {
        guard version >= 7 else { return }
        var remainder = version
        for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
        let bits = version << 12 | remainder
        for index in 0..<18 {
            let bit = (bits >> index) & 1 == 1
            let a = size - 11 + index % 3, b = index / 3
            set(a, b, bit)
            set(b, a, bit)
        }
    }

    /// The codewords' bits in the standard's zigzag, two columns at a time, right to left.
    package mutating func place(_ codewords: [UInt8]) {
        var bitIndex = 0
        let totalBits = codewords.count * 8
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            for vertical in 0..<size {
                for column in 0..<2 {
                    let x = right - column
                    let upward = (right + 1) & 2 == 0
                    let y = upward ? size - 1 - vertical : vertical
                    guard !reserved[y * size + x] else { continue }
                    if bitIndex < totalBits {
                        dark[y * size + x] = (codewords[bitIndex / 8] >> UInt8(7 - bitIndex % 8)) & 1 == 1
                        bitIndex += 1
                    }
                }
            }
            right -= 2
        }
    }

    package mutating func apply(mask: Int) {
        for y in 0..<size {
            for x in 0..<size where !reserved[y * size + x] {
                let flip =
                    switch mask {
                    case 0: (x + y) % 2 == 0
                    case 1: y % 2 == 0
                    case 2: x % 3 == 0
                    case 3: (x + y) % 3 == 0
                    case 4: (x / 3 + y / 2) % 2 == 0
                    case 5: x * y % 2 + x * y % 3 == 0
                    case 6: (x * y % 2 + x * y % 3) % 2 == 0
                    default: ((x + y) % 2 + x * y % 3) % 2 == 0
                    }
                if flip { dark[y * size + x].toggle() }
            }
        }
    }

    /// The standard's four penalty rules: runs, 2×2 blocks, finder-like patterns, dark balance.
    package func penalty() -> Int {
        var total = 0
        func module(_ x: Int, _ y: Int) -> Bool { dark[y * size + x] }
        for line in 0..<size {
            for horizontal in [true, false] {
                var run = 1
                var pattern = 0
                for index in 0..<size {
                    let current = horizontal ? module(index, line) : module(line, index)
                    if index > 0 {
                        let previous = horizontal ? module(index - 1, line) : module(line, index - 1)
                        if current == previous {
                            run += 1
                        } else {
                            if run >= 5 { total += run - 2 }
                            run = 1
                        }
                    }
                    pattern = ((pattern << 1) | (current ? 1 : 0)) & 0x7FF
                    if index >= 10, pattern == 0b10111010000 || pattern == 0b00001011101 { total += 40 }
                }
                if run >= 5 { total += run - 2 }
            }
        }
        for y in 0..<(size - 1) {
            for x in 0..<(size - 1) {
                let color = module(x, y)
                if module(x + 1, y) == color, module(x, y + 1) == color, module(x + 1, y + 1) == color { total += 3 }
            }
        }
        let darkCount = dark.filter { $0 }.count
        total += abs(darkCount * 20 - dark.count * 10) / dark.count * 10
        return total
    }

    /// An SVG path of the dark modules, one square per module, offset by a quiet zone of `margin`.
}
