/// Short-link suffixes as Dynamic Links made them: `SHORT` (4 characters to start with, longer
/// after collisions) or `UNGUESSABLE` (17 base62 characters holding 96 random bits).
public enum SuffixGenerator {
    package static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// The Dynamic Links suffix options: `SHORT` (4+ characters) or `UNGUESSABLE` (17).
    public enum Option: String, Sendable {
        case short = "SHORT"
        case unguessable = "UNGUESSABLE"
    }

    /// A `SHORT` suffix of `length` random base62 characters.
    public static func short(length: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String(decoding: (0..<length).map { _ in alphabet[Int.random(in: 0..<62, using: &generator)] }, as: UTF8.self)
    }

    /// An `UNGUESSABLE` suffix: 96 random bits written in base62, zero-padded to 17 characters.
    public static func unguessable() -> String {
        var generator = SystemRandomNumberGenerator()
        return base62(high: UInt32.random(in: .min ... .max, using: &generator), low: generator.next())
    }

    /// `high:low` (a 96-bit number) in base62, 17 characters, most significant first.
    package static func base62(high: UInt32, low: UInt64) -> String {
        // Long division of the 96-bit number, held as three 32-bit limbs, by 62.
        var limbs: [UInt64] = [UInt64(high), low >> 32, low & 0xFFFF_FFFF]
        var digits: [UInt8] = []
        for _ in 0..<17 {
            var remainder: UInt64 = 0
            for index in limbs.indices {
                let value = remainder << 32 | limbs[index]
                limbs[index] = value / 62
                remainder = value % 62
            }
            digits.append(alphabet[Int(remainder)])
        }
        return String(decoding: digits.reversed(), as: UTF8.self)
    }

    /// Why `suffix` cannot be a suffix someone chooses (the link API's `CUSTOM`, the console's
    /// form, an import), or nil when it can: 1 to 64 of `A-Z a-z 0-9 - _`, not a path the service
    /// serves itself (``ShortLinkPath``), and not under `__`, which Firebase Hosting keeps for itself.
    public static func problem(withChosen suffix: String) -> String? {
        guard (1...64).contains(suffix.utf8.count) else { return "a custom suffix must be 1 to 64 characters long" }
        guard isPlausible(Substring(suffix)) else { return "a custom suffix may hold only the letters A-Z and a-z, digits, - and _" }
        guard !suffix.hasPrefix("__"), ShortLinkPath.suffix(ofPath: Substring("/" + suffix)) != nil else {
            return "/\(suffix) is a path this service keeps for itself: choose another suffix"
        }
        return nil
    }

    /// Whether `suffix` could be a suffix at all (so other paths are never looked up).
    package static func isPlausible(_ suffix: Substring) -> Bool {
        var suffix = suffix
        return suffix.withUTF8 { isPlausible(UnsafeRawBufferPointer($0)) }
    }

    /// Whether `suffix`'s bytes could be a suffix. Byte ranges, not a search of the alphabet:
    /// every request for a one-segment path asks.
    package static func isPlausible(_ suffix: UnsafeRawBufferPointer) -> Bool {
        (1...64).contains(suffix.count)
            && suffix.allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0)
                    || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
            }
    }
}
