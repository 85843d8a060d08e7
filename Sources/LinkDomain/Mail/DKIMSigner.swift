import Crypto
import CryptoExtras
import Foundation
import LinkDomainCore
import LinkDomainStorage

/// Signs mails with DKIM (RFC 6376), relaxed/relaxed, with an RSA key (`rsa-sha256`) or an Ed25519
/// key (`ed25519-sha256`, RFC 8463), so receivers can tie a mail sent through any relay to the
/// sender's domain.
public struct DKIMSigner: Sendable {
    let key: DKIMKey
    /// `d=`: the domain whose DNS holds the public key.
    let domain: String
    /// `s=`: the record's name under `_domainkey.DOMAIN`.
    let selector: String

    /// The headers signed, as `h=` names them; each present in every mail LinkDomain writes.
    static let signedHeaders = ["from", "to", "subject", "date", "message-id", "mime-version", "content-type"]

    public init(key: DKIMKey, domain: String, selector: String) {
        self.key = key
        self.domain = domain
        self.selector = selector
    }

    /// The DNS name of the TXT record that publishes the key: `SELECTOR._domainkey.DOMAIN`.
    public var dnsName: String { "\(selector)._domainkey.\(domain)" }

    /// `message` (RFC 5322, CRLF) with a `DKIM-Signature:` header in front, signed at `time`.
    public func sign(_ message: String, time: Int) throws -> String {
        guard let split = message.range(of: "\r\n\r\n") else { return message }
        let headerBlock = String(message[..<split.lowerBound])
        let body = String(message[split.upperBound...])
        let bodyHash = Data(SHA256.hash(data: Array(DKIMCanonicalization.relaxedBody(body).utf8))).base64EncodedString()
        let headers = DKIMCanonicalization.headerFields(headerBlock)
        var signedNames: [String] = []
        var canonical = ""
        for name in Self.signedHeaders {
            // The last instance of each, as RFC 6376 §5.4.2 has verifiers pick them.
            guard let field = headers.last(where: { $0.name == name }) else { continue }
            signedNames.append(name)
            canonical += DKIMCanonicalization.relaxedHeader(field.raw) + "\r\n"
        }
        let unsigned =
            "DKIM-Signature: v=1; a=\(key.algorithm); c=relaxed/relaxed; d=\(domain); s=\(selector);\r\n"
            + "\tt=\(time); h=\(signedNames.joined(separator: ":")); bh=\(bodyHash);\r\n\tb="
        canonical += DKIMCanonicalization.relaxedHeader(unsigned)
        let data = Array(canonical.utf8)
        let signature: Data
        switch key {
        case .rsa(let key):
            signature = try key.signature(for: data, padding: .insecurePKCS1v1_5).rawRepresentation
        case .ed25519(let key):
            signature = try key.signature(for: Data(SHA256.hash(data: data)))
        }
        return unsigned + Self.folded(signature.base64EncodedString()) + "\r\n" + message
    }

    /// A long base64 value cut into 72-character pieces on continuation lines (whitespace in `b=` is ignored).
    static func folded(_ value: String) -> String {
        var pieces: [Substring] = []
        var rest = value[...]
        while !rest.isEmpty {
            pieces.append(rest.prefix(72))
            rest = rest.dropFirst(72)
        }
        return pieces.joined(separator: "\r\n\t")
    }
}

/// DKIM's relaxed canonicalization (RFC 6376 §3.4.2 and §3.4.4).
package enum DKIMCanonicalization {
    package struct Field {
        /// Lower-cased.
        let name: String
        /// The whole field, folded lines included, without the final CRLF.
        package let raw: String
    }

    /// The header block's fields, continuation lines joined to theirs.
    package static func headerFields(_ block: String) -> [Field] {
        var fields: [Field] = []
        for line in block.components(separatedBy: "\r\n") {
            if let first = line.first, first == " " || first == "\t", let last = fields.popLast() {
                fields.append(Field(name: last.name, raw: last.raw + "\r\n" + line))
            } else if let colon = line.firstIndex(of: ":") {
                fields.append(Field(name: line[..<colon].trimmingCharacters(in: .whitespaces).lowercased(), raw: line))
            }
        }
        return fields
    }

    /// `name:value`: the name lower-cased, the value unfolded, runs of spaces and tabs made one
    /// space, and none around the colon or at the ends.
    package static func relaxedHeader(_ field: String) -> String {
        guard let colon = field.firstIndex(of: ":") else { return field }
        let name = field[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let value = compressed(field[field.index(after: colon)...].replacingOccurrences(of: "\r\n", with: ""))
        return name + ":" + value.trimmingCharacters(in: CharacterSet(charactersIn: " "))
    }

    /// The body with trailing whitespace off each line, inner runs made one space, and the empty
    /// lines at the end removed; it ends with one CRLF unless empty.
    package static func relaxedBody(_ body: String) -> String {
        var lines = body.components(separatedBy: "\r\n").map { line in
            var compacted = compressed(line)
            while compacted.hasSuffix(" ") { compacted.removeLast() }
            return compacted
        }
        while let last = lines.last, last.isEmpty { lines.removeLast() }
        return lines.isEmpty ? "" : lines.joined(separator: "\r\n") + "\r\n"
    }

    private static func compressed<S: StringProtocol>(_ text: S) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        var inRun = false
        for character in text {
            if character == " " || character == "\t" {
                if !inRun { output.append(" ") }
                inRun = true
            } else {
                output.append(character)
                inRun = false
            }
        }
        return output
    }
}
