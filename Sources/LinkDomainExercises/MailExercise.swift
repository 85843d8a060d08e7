import FoundationEssentials
import LinkDomain
/// Takes arbitrary input through everything mail meets from outside: a relay's replies (read by
/// the strict reply decoder, line by line), relay URLs and addresses from configuration, the email
/// action API's body, and the encodings and DKIM canonicalization every mail goes through. The
/// fuzzer (`Fuzz/`) calls it with generated input, the tests with the fuzzer's corpus.
///
/// Returns the first broken promise it finds: an encoded line too long, a byte that is not ASCII.
public enum MailExercise {
    public static func run(_ bytes: [UInt8]) -> String? {
        var pending: [String] = []
        var pendingCode: Int?
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).prefix(256) {
            var line = Array(line)
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            guard line.count <= SMTPReplyDecoder.maximumLineLength else { break }
            do {
                if let reply = try SMTPReplyDecoder.accept(line, pending: &pending, pendingCode: &pendingCode) {
                    if !(200..<600).contains(reply.code) { return "reply code \(reply.code)" }
                    _ = reply.description
                }
            } catch {
                pending = []
                pendingCode = nil
            }
        }
        let text = String(decoding: bytes, as: UTF8.self)
        _ = SMTPRelay(url: text)?.redacted
        _ = MailAddress(text)?.domain
        if let body = try? RequestBodyDecoder.decode(bytes[...], contentType: "application/json", maximumBytes: RequestBodyDecoder.maximumBodyBytes) {
            _ = try? EmailActionRequest(body.decode(), locale: text)
        }
        let header = MIMEEncoding.headerText(text)
        if !header.utf8.allSatisfy({ $0 < 0x80 }) { return "non-ASCII header text" }
        for word in header.components(separatedBy: "\r\n ") where word.utf8.count > 75 && header.hasPrefix("=?") {
            return "encoded word of \(word.utf8.count) characters"
        }
        let body = MIMEEncoding.quotedPrintable(text)
        for line in body.components(separatedBy: "\r\n") where line.utf8.count > 76 || !line.utf8.allSatisfy({ $0 < 0x80 }) {
            return "quoted-printable line of \(line.utf8.count) bytes"
        }
        _ = DKIMCanonicalization.relaxedBody(text)
        for field in DKIMCanonicalization.headerFields(text) { _ = DKIMCanonicalization.relaxedHeader(field.raw) }
        _ = SMTPSession.dotStuffed(text)
        return nil
    }
}
