import Crypto
import Foundation

/// A key, credential or address named without being shown: the hex of its SHA-256, or of the
/// digest's first `bytes` (audit actors, stored budget keys, what a session is sealed over).
package enum KeyDigest {
    package static func hex(_ text: String, bytes: Int = SHA256.byteCount) -> String {
        SHA256.hash(data: Data(text.utf8)).prefix(bytes).map { String(format: "%02x", $0) }.joined()
    }
}
