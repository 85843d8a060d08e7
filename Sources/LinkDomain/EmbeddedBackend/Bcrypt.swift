import LinkDomainCore
import LinkDomainStorage

/// bcrypt (`$2a$`, `$2b$`, `$2y$`), to check the passwords of imported accounts: no library in reach
/// has it. Eksblowfish as Provos and Mazières define it, with OpenBSD's encoding.
enum Bcrypt {
    /// The highest cost accepted: each step doubles the work, and a check runs on every sign-in
    /// (cost 12 is about a quarter of a second; 14 was two, which let a few wrong passwords hold
    /// the hashing threads for everyone).
    static let maximumCost = 12
    static let alphabet = Array("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// Whether `password` is the one `hash` (`$2b$10$` + 22 characters of salt + 31 of hash) was made from.
    static func verify(_ password: String, against hash: String) -> Bool {
        let bytes = Array(hash.utf8)
        guard bytes.count == 60, bytes[0] == UInt8(ascii: "$"), bytes[1] == UInt8(ascii: "2"), bytes[3] == UInt8(ascii: "$"),
            [UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "y")].contains(bytes[2]), bytes[6] == UInt8(ascii: "$"),
            let cost = Int(String(decoding: bytes[4..<6], as: UTF8.self)), (4...maximumCost).contains(cost),
            let salt = decode(bytes[7..<29], count: 16), let expected = decode(bytes[29..<60], count: 23)
        else { return false }
        return ConstantTime.equal(digest(password: Array(password.utf8), salt: salt, cost: cost), expected)
    }

    /// The cost a hash names (`$2b$10$...`: 10), or nil when the text is no bcrypt hash.
    static func cost(of hash: String) -> Int? {
        let bytes = Array(hash.utf8)
        guard bytes.count == 60, bytes[0] == UInt8(ascii: "$"), bytes[1] == UInt8(ascii: "2"), bytes[3] == UInt8(ascii: "$"),
            bytes[6] == UInt8(ascii: "$")
        else { return nil }
        return Int(String(decoding: bytes[4..<6], as: UTF8.self))
    }

    /// The 23 bytes of a bcrypt hash.
    static func digest(password: [UInt8], salt: [UInt8], cost: Int) -> [UInt8] {
        // The password with its terminating NUL, at most 72 bytes.
        let key = Array((password + [0]).prefix(72))
        var state = State()
        state.expand(key: key, salt: salt)
        for _ in 0..<(1 << cost) {
            state.expand(key: key, salt: nil)
            state.expand(key: salt, salt: nil)
        }
        var words: [UInt32] = [0x4F72_7068, 0x6561_6E42, 0x6568_6F6C, 0x6465_7253, 0x6372_7944, 0x6F75_6274]  // "OrpheanBeholderScryDoubt"
        for _ in 0..<64 {
            for pair in stride(from: 0, to: 6, by: 2) {
                var left = words[pair], right = words[pair + 1]
                state.encrypt(&left, &right)
                words[pair] = left
                words[pair + 1] = right
            }
        }
        return Array(words.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * $0)) } }.prefix(23))
    }

    struct State {
        var p = Array(Bcrypt.piWords[0..<18])
        /// The four S-boxes, one after another.
        var s = Array(Bcrypt.piWords[18..<1042])

        func f(_ x: UInt32) -> UInt32 {
            let a = s[Int(x >> 24)], b = s[256 + Int((x >> 16) & 0xFF)], c = s[512 + Int((x >> 8) & 0xFF)], d = s[768 + Int(x & 0xFF)]
            return ((a &+ b) ^ c) &+ d
        }

        func encrypt(_ left: inout UInt32, _ right: inout UInt32) {
            var l = left, r = right
            for round in stride(from: 0, to: 16, by: 2) {
                l ^= p[round]
                r ^= f(l)
                r ^= p[round + 1]
                l ^= f(r)
            }
            l ^= p[16]
            r ^= p[17]
            left = r
            right = l
        }

        /// The next 32 bits of `data`, read cyclically from `index`.
        static func word(_ data: [UInt8], _ index: inout Int) -> UInt32 {
            var word: UInt32 = 0
            for _ in 0..<4 {
                word = word << 8 | UInt32(data[index])
                index = (index + 1) % data.count
            }
            return word
        }

        /// Eksblowfish's ExpandKey: the key into the P-array, then every P and S entry re-derived by
        /// encryption, mixing in the salt when there is one.
        mutating func expand(key: [UInt8], salt: [UInt8]?) {
            var keyIndex = 0, saltIndex = 0
            for index in 0..<18 { p[index] ^= Self.word(key, &keyIndex) }
            var left: UInt32 = 0, right: UInt32 = 0
            func next() {
                if let salt {
                    left ^= Self.word(salt, &saltIndex)
                    right ^= Self.word(salt, &saltIndex)
                }
                encrypt(&left, &right)
            }
            for index in stride(from: 0, to: 18, by: 2) {
                next()
                p[index] = left
                p[index + 1] = right
            }
            for index in stride(from: 0, to: 1024, by: 2) {
                next()
                s[index] = left
                s[index + 1] = right
            }
        }
    }

    /// bcrypt's base64 (its own alphabet, no padding) into `count` bytes.
    static func decode(_ text: ArraySlice<UInt8>, count: Int) -> [UInt8]? {
        var values: [UInt8] = []
        for character in text {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            values.append(UInt8(value))
        }
        var bytes: [UInt8] = []
        var index = 0
        while bytes.count < count, index + 1 < values.count {
            let chunk = Array(values[index..<min(index + 4, values.count)])
            bytes.append(chunk[0] << 2 | chunk[1] >> 4)
            if chunk.count > 2, bytes.count < count { bytes.append((chunk[1] & 0x0F) << 4 | chunk[2] >> 2) }
            if chunk.count > 3, bytes.count < count { bytes.append((chunk[2] & 0x03) << 6 | chunk[3]) }
            index += 4
        }
        return bytes.count == count ? bytes : nil
    }
}
