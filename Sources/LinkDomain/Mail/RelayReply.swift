import LinkDomainCore
import LinkDomainStorage

/// What of a relay's reply may be kept: the reply codes and words, without what identifies a
/// person or carries a code. Relays quote the recipient (Postfix: `550 5.1.1 <victim@example.org>:
/// Recipient address rejected`), and content filters quote the link they blocked, a live reset
/// link among them; the queue shows this text to every console user and `GET /v1/mail`.
enum RelayReply {
    /// `reason` with every address, every URL and every long code-like run of characters cut out.
    static func redacted(_ reason: String, recipient: String) -> String {
        var text = String(reason.prefix(2048))
        if !recipient.isEmpty { text = text.replacing("<\(recipient)>", with: "<recipient>").replacing(recipient, with: "<recipient>") }
        text = text.replacing(/(?i)[a-z][a-z0-9+.\-]*:\/\/[^\s<>"']+/, with: "<link>")
        text = text.replacing(/<?[^\s<>@:;,"'()\[\]]+@[^\s<>:;,"'()\[\]]+>?/, with: "<address>")
        // Codes and tokens: the service's own are 32 or more base64url characters.
        text = text.replacing(/[A-Za-z0-9_\-]{24,}/, with: "<code>")
        return text
    }
}
