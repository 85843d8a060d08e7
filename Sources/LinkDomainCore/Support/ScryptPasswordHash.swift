import Crypto
import CryptoExtras
import Foundation

/// Password hashes of the console's users: scrypt, written `scrypt$<log2 N>$<r>$<p>$<salt>$<key>` (salt
/// and key in base64). `linkdomain console hash-password` makes them; ``console.users`` holds them.
package struct ScryptPasswordHash: Sendable, Equatable {
    /// log2 of scrypt's N: 2^15 rounds, about 32 MiB and 0.1 s a check on this project's machine.
    package var logRounds = 15
    package var blockSize = 8
    package var parallelism = 1
    package var salt: [UInt8]
    package var key: [UInt8]

    package static let keyLength = 32
    /// Parameters read from configuration are bounded, so that a hash cannot make a check take minutes.
    package static let logRoundsRange = 10...20

    /// A new hash of `password` with a random salt.
    package static func make(_ password: String, logRounds: Int = 15) throws -> ScryptPasswordHash {
        var salt = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = generator.next() }
        var hash = ScryptPasswordHash(logRounds: logRounds, salt: salt, key: [])
        hash.key = try hash.derive(password)
        return hash
    }

    /// Reads the written form; nil when it is not one.
    package init?(_ text: String) {
        let parts = text.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0] == "scrypt", let logRounds = Int(parts[1]), Self.logRoundsRange.contains(logRounds),
            let blockSize = Int(parts[2]), (1...16).contains(blockSize), let parallelism = Int(parts[3]), (1...4).contains(parallelism),
            let salt = Data(base64Encoded: String(parts[4])), (8...64).contains(salt.count),
            let key = Data(base64Encoded: String(parts[5])), key.count == Self.keyLength
        else { return nil }
        self.init(logRounds: logRounds, blockSize: blockSize, parallelism: parallelism, salt: Array(salt), key: Array(key))
    }

    package init(logRounds: Int = 15, blockSize: Int = 8, parallelism: Int = 1, salt: [UInt8], key: [UInt8]) {
        self.logRounds = logRounds
        self.blockSize = blockSize
        self.parallelism = parallelism
        self.salt = salt
        self.key = key
    }

    package var text: String {
        "scrypt$\(logRounds)$\(blockSize)$\(parallelism)$\(Data(salt).base64EncodedString())$\(Data(key).base64EncodedString())"
    }

    /// Whether `password` is the one hashed; the comparison takes the same time wherever the keys differ.
    package func matches(_ password: String) -> Bool {
        guard let derived = try? derive(password) else { return false }
        return ConstantTime.equal(derived, key)
    }

    private func derive(_ password: String) throws -> [UInt8] {
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8), salt: salt, outputByteCount: Self.keyLength, rounds: 1 << logRounds,
            blockSize: blockSize, parallelism: parallelism)
        return key.withUnsafeBytes { Array($0) }
    }
}
