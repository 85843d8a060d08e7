import Foundation

/// Unpadded base64url (RFC 4648 §5), as JWTs, codes and form tokens spell bytes in URLs.
///
/// Written over bytes: Foundation's base64 followed by three `replacingOccurrences` took some
/// 300,000 instructions for a hand-off token, more than the rest of the page it sits in.
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Takes an array, not any sequence: called from another module, a generic body runs
    /// unspecialized, each byte read through witness tables (an HMAC's 32 bytes cost a form page
    /// some 10,000 instructions that way). Callers holding other bytes copy them contiguously first.
    /// Whether `text` is 1 or more characters of the base64url alphabet (no padding), such as an
    /// ACME token or nonce.
    package static func isAlphabet(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { alphabet.contains($0) }
    }

    package static func encode(_ input: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= input.count {
            let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
            output.append(alphabet[Int(chunk >> 6 & 63)])
            output.append(alphabet[Int(chunk & 63)])
            index += 3
        }
        let rest = input.count - index
        if rest > 0 {
            let chunk = UInt32(input[index]) << 16 | (rest == 2 ? UInt32(input[index + 1]) << 8 : 0)
            output.append(alphabet[Int(chunk >> 18 & 63)])
            output.append(alphabet[Int(chunk >> 12 & 63)])
            if rest == 2 { output.append(alphabet[Int(chunk >> 6 & 63)]) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of `text`, or nil when it is not base64url (padding accepted, whitespace not).
    @inlinable
    package static func decode(_ text: some StringProtocol) -> Data? {
        decode(utf8: Array(text.utf8))
    }

    @usableFromInline
    package static func decode(utf8 text: [UInt8]) -> Data? {
        var values: [UInt8] = []
        values.reserveCapacity(text.count)
        var padding = 0
        for byte in text {
            if byte == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            guard padding == 0, let value = Self.value(of: byte) else { return nil }
            values.append(value)
        }
        // A lone character holds fewer than 8 bits; at most two '=' end the text.
        guard values.count % 4 != 1, padding <= 2 else { return nil }
        var output = Data(capacity: values.count * 3 / 4)
        var index = 0
        while index < values.count {
            let group = values[index..<min(index + 4, values.count)]
            var chunk: UInt32 = 0
            for (position, value) in group.enumerated() { chunk |= UInt32(value) << UInt32(18 - 6 * position) }
            output.append(UInt8(chunk >> 16 & 0xFF))
            if group.count > 2 { output.append(UInt8(chunk >> 8 & 0xFF)) }
            if group.count > 3 { output.append(UInt8(chunk & 0xFF)) }
            index += 4
        }
        return output
    }

    private static func value(of byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: nil
        }
    }
}
