import Foundation

/// Unpadded base64url (RFC 4648 §5), as JWTs, codes and form tokens spell bytes in URLs.
enum Base64URL {
    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of `text`, or nil when it is not base64url (padding accepted, whitespace not).
    static func decode(_ text: some StringProtocol) -> Data? {
        guard !text.contains("+"), !text.contains("/") else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Data(base64Encoded: standard)
    }
}
