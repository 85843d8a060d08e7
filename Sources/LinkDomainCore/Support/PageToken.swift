import Foundation

/// Where a page of a listing ended, as the listing APIs and the console hand it back: the last
/// row's sort value and key, in base64url (opaque to callers, checked when it comes back).
package enum PageToken {
    package static func encode(value: Int64, key: String) -> String {
        Base64URL.encode(Array("\(value).\(key)".utf8))
    }

    package static func decode(_ token: some StringProtocol) -> (value: Int64, key: String)? {
        guard token.utf8.count <= 400, let bytes = Base64URL.decode(token), let text = String(data: bytes, encoding: .utf8) else { return nil }
        let parts = text.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let value = Int64(parts[0]) else { return nil }
        return (value, String(parts[1]))
    }
}
