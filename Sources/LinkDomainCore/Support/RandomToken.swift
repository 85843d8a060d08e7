/// Unguessable identifiers: codes, refresh tokens, user IDs.
package enum RandomToken {
    /// `bytes` random bytes as unpadded base64url.
    package static func make(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<bytes).map { _ in generator.next() as UInt8 })
    }

    /// A 28-character user ID from the base62 alphabet, like Firebase's.
    package static func localID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<28).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }
}
