import Foundation
import LinkDomainCore
import LinkDomainStorage

/// The encodings a mail needs to carry any text through any relay: RFC 2047 encoded words for
/// header text, quoted-printable (RFC 2045) for bodies. Every line they make stays under 78 bytes.
package enum MIMEEncoding {
    /// Header text as is when it is plain printable ASCII, otherwise as `=?UTF-8?B?...?=` words of
    /// at most 75 characters, folded onto continuation lines (never splitting a character).
    package static func headerText(_ text: String) -> String {
        let plain = text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } && !text.contains("=?") && text.utf8.count <= 900
        if plain { return text }
        // 75 - "=?UTF-8?B?".count - "?=".count = 63 base64 characters: 45 bytes of text per word.
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in text {
            let bytes = Array(String(character).utf8).filter { $0 != 0x0D && $0 != 0x0A }
            if chunk.count + bytes.count > 45, !chunk.isEmpty {
                words.append(encodedWord(chunk))
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty { words.append(encodedWord(chunk)) }
        return words.joined(separator: "\r\n ")
    }

    private static func encodedWord(_ bytes: [UInt8]) -> String {
        "=?UTF-8?B?" + Data(bytes).base64EncodedString() + "?="
    }

    /// A display name and address for `From:`/`To:`: the name quoted (or encoded) when there is one.
    static func mailbox(name: String?, address: MailAddress) -> String {
        guard let name, !name.isEmpty else { return address.value }
        let cleaned = name.filter { $0 != "\r" && $0 != "\n" }
        let isAtom = cleaned.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
        let display = isAtom && !cleaned.contains("=?") ? "\"\(cleaned)\"" : headerText(cleaned)
        return "\(display) <\(address.value)>"
    }

    /// `text` quoted-printable: line breaks become CRLF, every other byte outside printable ASCII
    /// (and `=`, and a space or tab before a line break) becomes `=XX`, lines are cut at 76 with soft breaks.
    package static func quotedPrintable(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count + text.utf8.count / 8)
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() {
            let bytes = Array(line.utf8)
            var lineLength = 0
            for (position, byte) in bytes.enumerated() {
                let isLast = position == bytes.count - 1
                var piece: [UInt8]
                let literal = (byte >= 0x21 && byte <= 0x7E && byte != UInt8(ascii: "=")) || ((byte == 0x20 || byte == 0x09) && !isLast)
                // A line that starts with a dot would be read as the end of the message by a careless relay.
                if literal && !(byte == UInt8(ascii: ".") && lineLength == 0) {
                    piece = [byte]
                } else {
                    piece = [UInt8(ascii: "="), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
                }
                // Leave room for the soft break's "=" on the 76-character line.
                if lineLength + piece.count > 75 {
                    output += Array("=\r\n".utf8)
                    lineLength = 0
                    if piece == [UInt8(ascii: ".")] { piece = Array("=2E".utf8) }
                }
                output += piece
                lineLength += piece.count
            }
            if index < lines.count - 1 { output += [0x0D, 0x0A] }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The words of quoted-printable `text`: soft breaks removed, `=XX` read back; a malformed
    /// escape is kept as written (this reads our own mails, for the development log).
    package static func decodeQuotedPrintable(_ text: Substring) -> String {
        let bytes = Array(text.replacingOccurrences(of: "=\r\n", with: "").utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "="), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The plain-text part of a message ``MailMessage/rendered()`` wrote, decoded: what the
    /// development log shows instead of the raw message. Nil for any other shape.
    package static func plainText(of message: String) -> String? {
        let start = "Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"
        guard let begin = message.range(of: start), let end = message.range(of: "\r\n--=_linkdomain_", range: begin.upperBound..<message.endIndex)
        else { return nil }
        return decodeQuotedPrintable(message[begin.upperBound..<end.lowerBound])
    }
}
