import Foundation
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Mail encodings: RFC 2047 headers, quoted-printable bodies, the whole message")
struct MIMEEncodingTests {
    /// Quoted-printable decoded the plain way: soft breaks joined, `=XX` turned back into bytes.
    static func decodeQuotedPrintable(_ text: String) -> String {
        let joined = Array(text.replacingOccurrences(of: "=\r\n", with: "").utf8)
        var bytes: [UInt8] = []
        var index = 0
        while index < joined.count {
            if joined[index] == UInt8(ascii: "="), index + 2 < joined.count,
                let byte = UInt8(String(decoding: joined[index + 1...index + 2], as: UTF8.self), radix: 16)
            {
                bytes.append(byte)
                index += 3
            } else {
                bytes.append(joined[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Encoded words decoded: each `=?UTF-8?B?...?=`'s bytes, joined before decoding as UTF-8.
    static func decodeHeader(_ text: String) -> String {
        guard text.hasPrefix("=?UTF-8?B?") else { return text }
        var bytes = Data()
        for word in text.components(separatedBy: "\r\n ") {
            #expect(word.count <= 75, "encoded word longer than 75 characters")
            bytes += Data(base64Encoded: String(word.dropFirst(10).dropLast(2))) ?? Data()
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test(
        "header text: plain ASCII as is; anything else in encoded words that decode to it, never splitting a character",
        arguments: [
            "Reset your Example password", "Сброс пароля в приложении Example App — очень длинная тема письма, чтобы её перенести",
            "Đặt lại mật khẩu cho ứng dụng Example App của bạn ngay bây giờ 🔐", "=?not-a-word?=", "Line\r\nbreak",
        ])
    func headerText(subject: String) {
        let encoded = MIMEEncoding.headerText(subject)
        #expect(!encoded.replacingOccurrences(of: "\r\n ", with: "").contains("\r") && !encoded.replacingOccurrences(of: "\r\n ", with: "").contains("\n"))
        #expect(encoded.utf8.allSatisfy { $0 < 0x80 })
        #expect(Self.decodeHeader(encoded) == subject.replacingOccurrences(of: "\r\n", with: ""))
    }

    @Test(
        "quoted-printable: decodes to the text with CRLF line ends; lines of at most 76; trailing spaces, '=' and leading dots encoded",
        arguments: [
            "Hello,\n\nOpen this link: https://links.example.com/__/auth/action?apiKey=K&mode=resetPassword&oobCode=" + String(repeating: "x", count: 120),
            "Trailing space \nand tab\t\n.leading dot\n= sign", "Здравствуйте!\nЭто письмо — тест.", String(repeating: "é", count: 200),
        ])
    func quotedPrintable(text: String) {
        let encoded = MIMEEncoding.quotedPrintable(text)
        #expect(Self.decodeQuotedPrintable(encoded) == text.replacingOccurrences(of: "\n", with: "\r\n"))
        for line in encoded.components(separatedBy: "\r\n") {
            #expect(line.utf8.count <= 76)
            #expect(!line.hasSuffix(" ") && !line.hasSuffix("\t"))
            #expect(!line.hasPrefix("."))
        }
        #expect(encoded.utf8.allSatisfy { $0 < 0x80 })
    }

    @Test("the message: RFC 5322 headers, multipart/alternative of two quoted-printable parts, CRLF, no line over 998 bytes")
    func message() throws {
        let sender = MailSender(name: "Exämple \"App\"", address: try #require(MailAddress("noreply@example.com")))
        let message = MailMessage(
            sender: sender, recipient: try #require(MailAddress("user@example.org")), subject: "Привет",
            text: "text " + String(repeating: "a", count: 2000), html: "<p>html</p>", date: 1_795_000_000,
            messageID: MailMessage.newMessageID(domain: "example.com"))
        let rendered = message.rendered()
        let lines = rendered.components(separatedBy: "\r\n")
        #expect(!rendered.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        #expect(lines.allSatisfy { $0.utf8.count <= 998 })
        #expect(lines.contains("To: user@example.org"))
        #expect(lines.contains { $0.hasPrefix("From: =?UTF-8?B?") && $0.hasSuffix(" <noreply@example.com>") })
        #expect(lines.contains("Subject: =?UTF-8?B?0J/RgNC40LLQtdGC?="))
        #expect(lines.contains("Date: Wed, 18 Nov 2026 11:06:40 +0000"))
        #expect(lines.contains { $0.hasPrefix("Message-ID: <") && $0.hasSuffix("@example.com>") })
        #expect(lines.contains("MIME-Version: 1.0"))
        #expect(lines.filter { $0 == "Content-Transfer-Encoding: quoted-printable" }.count == 2)
        #expect(lines.contains("Content-Type: text/plain; charset=utf-8") && lines.contains("Content-Type: text/html; charset=utf-8"))
        #expect(MailMessage.newMessageID(domain: "example.com") != MailMessage.newMessageID(domain: "example.com"))
    }

    @Test("addresses: what a relay takes, nothing that could break a header or a command")
    func addresses() {
        for valid in ["a@example.com", "first.last+tag@sub.example.co.uk", "user@localhost"] { #expect(MailAddress(valid) != nil, "\(valid)") }
        for invalid in [
            "", "plain", "@example.com", "a@", "a@b", "a b@example.com", "a@example.com\r\nBcc: x@y.z", "<a@example.com>",
            "a@example..com", "a,b@example.com", String(repeating: "a", count: 65) + "@example.com",
        ] {
            #expect(MailAddress(invalid) == nil, "\(invalid)")
        }
        #expect(MailAddress("User@Example.COM")?.domain == "example.com")
    }
}
