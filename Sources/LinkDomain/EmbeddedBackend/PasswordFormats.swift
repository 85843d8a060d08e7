import Crypto
import CryptoExtras
import Foundation
import LinkDomainCore
import LinkDomainStorage

/// Password hashes brought in by `accounts:batchCreate`, kept in their own algorithm and checked
/// with it, so a team's exported users keep their passwords. Stored as `algorithm$parameters$...`
/// with binary values in base64, beside this backend's own `scrypt$...` hashes.
enum PasswordFormats {
    /// The algorithms an import may name, with the parameters each needs.
    enum Algorithm: Sendable, Equatable {
        /// Firebase's own, modified scrypt: `signerKey` encrypted with AES-256-CTR under a key
        /// derived from the password and `salt + saltSeparator` (N = 2^memoryCost, r = rounds, p = 1).
        case firebaseScrypt(signerKey: [UInt8], saltSeparator: [UInt8], rounds: Int, memoryCost: Int)
        case standardScrypt(cpuMemoryCost: Int, blockSize: Int, parallelization: Int, keyLength: Int)
        case pbkdf2SHA256(rounds: Int)
        case hmacSHA256(key: [UInt8])
        case bcrypt
    }

    /// scrypt's working memory (128 × N × r bytes) an import may ask for per check: 64 MiB.
    static let maximumScryptMemory = 64 * 1024 * 1024
    /// scrypt's work per check (N × r × p block mixes) an import may ask for: four times this
    /// backend's own hash (2^14 × 8 × 1), about a third of a second. Memory alone is no cap: p
    /// multiplies the time, not the memory (N = 2^16, r = 8, p = 16 took 4.8 s a check).
    static let maximumScryptWork = 1 << 19

    /// Why scrypt parameters are refused, or nil when RFC 7914 allows them within the caps:
    /// N a power of two above 1 and below 2^(16 r), p within its bound, and the work capped.
    static func scryptRefusal(cost: Int, blockSize: Int, parallelization: Int) -> String? {
        guard cost > 1, cost & (cost - 1) == 0 else { return "cpuMemCost must be a power of two above 1" }
        // The import's own ranges, checked again before any arithmetic: a stored hash's text is read back here too.
        guard (1...64).contains(blockSize), (1...16).contains(parallelization) else {
            return "blockSize must be 1 to 64 and parallelization 1 to 16"
        }
        // RFC 7914: N < 2^(128 r / 8); with N below 2^21 the bound matters only for r < 2.
        if 16 * blockSize < 62, cost >= 1 << (16 * blockSize) { return "cpuMemCost must be below 2^(16 × blockSize) (RFC 7914)" }
        let (work, overflow) = cost.multipliedReportingOverflow(by: blockSize * parallelization)
        guard !overflow, work <= maximumScryptWork else {
            return "cpuMemCost × blockSize × parallelization must be at most \(maximumScryptWork): each sign-in would take seconds"
        }
        guard 128 * cost * blockSize <= maximumScryptMemory else { return "STANDARD_SCRYPT parameters need more than 64 MiB per check" }
        return nil
    }

    /// The algorithm a `batchCreate` body names, or Google's error for a missing or out-of-range parameter.
    static func algorithm(_ request: BatchCreateRequest) throws(IdentityToolkitError) -> Algorithm {
        func bytes(_ base64: String?) -> [UInt8]? { base64.flatMap(decodeBase64).map(Array.init) }
        func integer(_ field: WholeNumber, _ name: String, _ range: ClosedRange<Int64>) throws(IdentityToolkitError) -> Int? {
            try field.within(range, else: IdentityToolkitError(.invalidArgument, detail: "\(name) is out of range")).map(Int.init)
        }
        let name = request.hashAlgorithm ?? ""
        switch name {
        case "SCRYPT":
            guard let key = bytes(request.signerKey) else { throw IdentityToolkitError(.invalidArgument, detail: "SCRYPT needs signerKey") }
            let rounds = try integer(request.rounds, "rounds", 1...8) ?? 8
            let memoryCost = try integer(request.memoryCost, "memoryCost", 1...14) ?? 14
            return .firebaseScrypt(signerKey: key, saltSeparator: bytes(request.saltSeparator) ?? [], rounds: rounds, memoryCost: memoryCost)
        case "STANDARD_SCRYPT":
            let cost = try integer(request.cpuMemCost, "cpuMemCost", 2...1_048_576) ?? 16384
            let block = try integer(request.blockSize, "blockSize", 1...64) ?? 8
            let parallel = try integer(request.parallelization, "parallelization", 1...16) ?? 1
            let length = try integer(request.dkLen, "dkLen", 1...128) ?? 64
            if let refusal = scryptRefusal(cost: cost, blockSize: block, parallelization: parallel) {
                throw IdentityToolkitError(.invalidArgument, detail: refusal)
            }
            return .standardScrypt(cpuMemoryCost: cost, blockSize: block, parallelization: parallel, keyLength: length)
        case "PBKDF2_SHA256":
            return .pbkdf2SHA256(rounds: try integer(request.rounds, "rounds", 1...120_000) ?? 10000)
        case "HMAC_SHA256":
            guard let key = bytes(request.signerKey) else { throw IdentityToolkitError(.invalidArgument, detail: "HMAC_SHA256 needs signerKey") }
            return .hmacSHA256(key: key)
        case "BCRYPT":
            return .bcrypt
        default:
            throw IdentityToolkitError(.invalidHashAlgorithm, detail: name.isEmpty ? "hashAlgorithm is missing" : "\(name) is not supported")
        }
    }

    /// The stored form of an imported `hash` (with `salt`) under `algorithm`.
    static func stored(_ algorithm: Algorithm, hash: [UInt8], salt: [UInt8]) -> String {
        let b64 = { (bytes: [UInt8]) in Data(bytes).base64EncodedString() }
        return switch algorithm {
        case .firebaseScrypt(let key, let separator, let rounds, let memoryCost):
            ["firebase-scrypt", String(rounds), String(memoryCost), b64(key), b64(separator), b64(salt), b64(hash)].joined(separator: "$")
        case .standardScrypt(let cost, let block, let parallel, let length):
            ["standard-scrypt", String(cost), String(block), String(parallel), String(length), b64(salt), b64(hash)].joined(separator: "$")
        case .pbkdf2SHA256(let rounds):
            ["pbkdf2-sha256", String(rounds), b64(salt), b64(hash)].joined(separator: "$")
        case .hmacSHA256(let key):
            ["hmac-sha256", b64(key), b64(salt), b64(hash)].joined(separator: "$")
        case .bcrypt:
            "bcrypt$" + String(decoding: hash, as: UTF8.self)
        }
    }

    /// Whether `password` matches an imported hash; nil when `stored` is not one.
    static func verify(_ password: String, against stored: String) -> Bool? {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false).map(String.init)
        let secret = Array(password.utf8)
        func data(_ index: Int) -> [UInt8]? { index < parts.count ? Data(base64Encoded: parts[index]).map(Array.init) : nil }
        func number(_ index: Int) -> Int? { index < parts.count ? Int(parts[index]) : nil }
        switch parts.first {
        case "firebase-scrypt":
            guard parts.count == 7, let rounds = number(1), (1...8).contains(rounds), let memoryCost = number(2), (1...14).contains(memoryCost),
                let key = data(3),
                let separator = data(4), let salt = data(5), let expected = data(6),
                let derived = try? KDF.Scrypt.deriveKey(
                    from: secret, salt: salt + separator, outputByteCount: 32, rounds: 1 << memoryCost,
                    blockSize: rounds, parallelism: 1, maxMemory: maximumScryptMemory),
                let nonce = try? AES._CTR.Nonce(nonceBytes: [UInt8](repeating: 0, count: 16)),
                let encrypted = try? AES._CTR.encrypt(key, using: derived, nonce: nonce)
            else { return false }
            return ConstantTime.equal(Array(encrypted), expected)
        case "standard-scrypt":
            // Parameters stored before the caps existed are held to them too: a check never costs more.
            guard parts.count == 7, let cost = number(1), let block = number(2), let parallel = number(3), let length = number(4),
                (1...128).contains(length), scryptRefusal(cost: cost, blockSize: block, parallelization: parallel) == nil,
                let salt = data(5), let expected = data(6),
                let derived = try? KDF.Scrypt.deriveKey(
                    from: secret, salt: salt, outputByteCount: length, rounds: cost, blockSize: block,
                    parallelism: parallel, maxMemory: maximumScryptMemory)
            else { return false }
            return ConstantTime.equal(derived.withUnsafeBytes { Array($0) }, expected)
        case "pbkdf2-sha256":
            guard parts.count == 4, let rounds = number(1), (1...120_000).contains(rounds), let salt = data(2), let expected = data(3),
                (1...64).contains(expected.count),
                let derived = try? KDF.Insecure.PBKDF2.deriveKey(
                    from: secret, salt: salt, using: .sha256, outputByteCount: max(1, expected.count),
                    unsafeUncheckedRounds: rounds)
            else { return false }
            return ConstantTime.equal(derived.withUnsafeBytes { Array($0) }, expected)
        case "hmac-sha256":
            guard parts.count == 4, let key = data(1), let salt = data(2), let expected = data(3) else { return false }
            // Imports do not say whether the salt came first: either order is the account's password.
            let key256 = SymmetricKey(data: key)
            return HMAC<SHA256>.isValidAuthenticationCode(expected, authenticating: secret + salt, using: key256)
                || HMAC<SHA256>.isValidAuthenticationCode(expected, authenticating: salt + secret, using: key256)
        case "bcrypt":
            return Bcrypt.verify(password, against: String(stored.dropFirst("bcrypt$".count)))
        default:
            return nil
        }
    }

    /// The hash and salt an admin listing shows (base64), for this backend's own hashes and imported ones.
    static func exported(_ stored: String) -> (hash: String, salt: String)? {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false).map(String.init)
        switch (parts.first, parts.count) {
        case ("scrypt", 6): return (parts[5], parts[4])
        case ("firebase-scrypt", 7), ("standard-scrypt", 7): return (parts[6], parts[5])
        case ("pbkdf2-sha256", 4), ("hmac-sha256", 4): return (parts[3], parts[2])
        case ("bcrypt", _): return (Data(stored.dropFirst("bcrypt$".count).utf8).base64EncodedString(), "")
        default: return nil
        }
    }

    /// Standard or URL-safe base64, padded or not: the admin SDKs send the URL-safe alphabet.
    static func decodeBase64(_ text: String) -> Data? {
        Data(base64Encoded: text) ?? Base64URL.decode(text.replacingOccurrences(of: "=", with: ""))
    }
}
