import LinkDomainCore
import LinkDomainStorage
import NIOCore

/// HTML escaping as Mustache's `{{ }}` does it (`<`, `>`, `&`, `"`, `'`), over bytes.
enum HTMLText {
    static func escape(_ text: String) -> String {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.contains(where: isSpecial) else { return nil }
            var escaped: [UInt8] = []
            escaped.reserveCapacity(bytes.count + 32)
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "<"): escaped += "&lt;".utf8
                case UInt8(ascii: ">"): escaped += "&gt;".utf8
                case UInt8(ascii: "&"): escaped += "&amp;".utf8
                case UInt8(ascii: "\""): escaped += "&quot;".utf8
                case UInt8(ascii: "'"): escaped += "&#39;".utf8
                default: escaped.append(byte)
                }
            }
            return String(decoding: escaped, as: UTF8.self)
        } ?? text
    }

    /// `text` escaped, written to `buffer`: the runs between special bytes as they are.
    static func write(_ text: String, into buffer: inout ByteBuffer) {
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            for (index, byte) in bytes.enumerated() where isSpecial(byte) {
                buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start..<index])))
                buffer.writeStaticString(replacement(byte))
                start = index + 1
            }
            buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start...])))
        }
    }

    private static func replacement(_ byte: UInt8) -> StaticString {
        switch byte {
        case UInt8(ascii: "<"): "&lt;"
        case UInt8(ascii: ">"): "&gt;"
        case UInt8(ascii: "&"): "&amp;"
        case UInt8(ascii: "\""): "&quot;"
        default: "&#39;"
        }
    }

    private static func isSpecial(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    }
}
