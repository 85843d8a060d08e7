import LinkDomainCore
import LinkDomainStorage

/// One mail as its recipient's client shows it: plain text and HTML alternatives of the same words.
public struct MailMessage: Sendable, Equatable {
    public var sender: MailSender
    public var recipient: MailAddress
    public var subject: String
    public var text: String
    public var html: String
    /// Seconds since 1970, for `Date:`.
    public var date: Int
    /// Unique, on the sender's domain (without the angle brackets).
    public var messageID: String
    /// The language the mail is written in (`Content-Language`), a tag of ``Languages/supported``.
    public var language: String?

    public init(
        sender: MailSender, recipient: MailAddress, subject: String, text: String, html: String, date: Int, messageID: String,
        language: String? = nil
    ) {
        self.sender = sender
        self.recipient = recipient
        self.subject = subject
        self.text = text
        self.html = html
        self.date = date
        self.messageID = messageID
        self.language = language
    }

    /// A fresh Message-ID on `domain`: 144 random bits, so no two replicas ever make the same one.
    public static func newMessageID(domain: String) -> String {
        "\(RandomToken.make(bytes: 18))@\(domain)"
    }

    /// The message in RFC 5322 form, CRLF line ends, no line over 78 bytes but the encoded words'
    /// folding allows: headers, then a `multipart/alternative` body of two quoted-printable parts.
    public func rendered() -> String {
        let boundary = "=_linkdomain_" + messageID.prefix { $0 != "@" }.filter { $0.isLetter || $0.isNumber }
        var lines = [
            "From: " + MIMEEncoding.mailbox(name: sender.name, address: sender.address),
            "To: " + recipient.value,
            "Subject: " + MIMEEncoding.headerText(subject),
            "Date: " + Self.date(date),
            "Message-ID: <\(messageID)>",
            "MIME-Version: 1.0",
        ]
        if let language { lines.append("Content-Language: " + language) }
        lines += [
            "Content-Type: multipart/alternative; boundary=\"\(boundary)\"",
            // RFC 3834: no vacation replies to a machine's mail.
            "Auto-Submitted: auto-generated",
            "",
        ]
        for (type, body) in [("text/plain", text), ("text/html", html)] {
            lines += [
                "--" + boundary, "Content-Type: \(type); charset=utf-8", "Content-Transfer-Encoding: quoted-printable", "",
                MIMEEncoding.quotedPrintable(body),
            ]
        }
        lines += ["--" + boundary + "--", ""]
        return lines.joined(separator: "\r\n")
    }

    /// RFC 5322's date: `Sun, 22 Nov 2026 22:32:15 +0000`.
    static func date(_ second: Int) -> String {
        let http = HTTPDate.format(second)
        return http.hasSuffix(" GMT") ? String(http.dropLast(4)) + " +0000" : http
    }
}
