import Crypto
import CryptoExtras
import Foundation

/// Hashes passwords with scrypt (memory-hard), storing parameters and salt with the hash so they
/// can be raised later without invalidating existing hashes: `scrypt$N$r$p$salt$hash` (base64).
struct PasswordHasher: Sendable {
    /// 2^14 rounds × block size 8 uses 16 MiB per hash, the interactive-login setting scrypt's authors recommend.
    static let defaultRounds = 1 << 14
    var rounds = PasswordHasher.defaultRounds
    var blockSize = 8
    var parallelism = 1

    func hash(_ password: String) throws -> String {
        var salt = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = generator.next() }
        let key = try derive(password, salt: salt, rounds: rounds, blockSize: blockSize, parallelism: parallelism)
        return ["scrypt", String(rounds), String(blockSize), String(parallelism),
                Data(salt).base64EncodedString(), Data(key).base64EncodedString()].joined(separator: "$")
    }

    func verify(_ password: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$").map(String.init)
        guard parts.count == 6, parts[0] == "scrypt", let rounds = Int(parts[1]), let blockSize = Int(parts[2]),
            let parallelism = Int(parts[3]), let salt = Data(base64Encoded: parts[4]), let expected = Data(base64Encoded: parts[5]),
            let key = try? derive(password, salt: Array(salt), rounds: rounds, blockSize: blockSize, parallelism: parallelism)
        else { return false }
        // Constant-time comparison: the time taken says nothing about how much matched.
        guard key.count == expected.count else { return false }
        return zip(key, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private func derive(_ password: String, salt: [UInt8], rounds: Int, blockSize: Int, parallelism: Int) throws -> [UInt8] {
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8), salt: salt, outputByteCount: 32, rounds: rounds, blockSize: blockSize,
            parallelism: parallelism, maxMemory: 64 * 1024 * 1024)
        return key.withUnsafeBytes { Array($0) }
    }
}
