/// An email address as SMTP carries it (`local@domain`): checked once, so that no header or
/// command built from it can be split by a line break or a bracket.
public struct MailAddress: Sendable, Equatable, Hashable, CustomStringConvertible {
    public let value: String
    /// What follows the `@`, lower-cased: where a Message-ID and a DKIM signature are made.
    public let domain: String

    /// RFC 5321's limit on a forward path.
    package static let maximumLength = 254

    /// The address, or nil when it is not one a relay would take: one `@`, a non-empty local part
    /// of at most 64 bytes, a domain with a dot (or a loopback name), no spaces, controls, `<>`, `,` or `;`.
    public init?(_ text: String) {
        guard text.utf8.count <= Self.maximumLength, let at = text.lastIndex(of: "@") else { return nil }
        let local = text[..<at]
        let domain = text[text.index(after: at)...]
        guard !local.isEmpty, local.utf8.count <= 64, !domain.isEmpty, domain.utf8.count <= 253 else { return nil }
        let forbidden: Set<UInt8> = [
            UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: " "),
            UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "("), UInt8(ascii: ")"),
        ]
        guard !text.utf8.contains(where: { $0 < 0x21 || $0 == 0x7F || forbidden.contains($0) }) else { return nil }
        guard !local.contains("@"), !domain.hasPrefix("."), !domain.hasSuffix("."), !domain.contains(".."),
            domain.contains(".") || domain == "localhost"
        else { return nil }
        value = text
        self.domain = domain.lowercased()
    }

    public var description: String { value }
}

/// Who a mail comes from: a display name (optional) and an address.
public struct MailSender: Sendable, Equatable {
    public var name: String?
    public var address: MailAddress

    public init(name: String?, address: MailAddress) {
        self.name = name
        self.address = address
    }
}
