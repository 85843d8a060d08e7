import Crypto
import CryptoExtras
import Foundation

/// A DKIM private key, read from PEM: RSA (`rsa-sha256`) or Ed25519 (`ed25519-sha256`, RFC 8463).
public enum DKIMKey: Sendable {
    case rsa(_RSA.Signing.PrivateKey)
    case ed25519(Curve25519.Signing.PrivateKey)

    /// Why a key file cannot sign.
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    /// The key in `pem`: PKCS#8 or PKCS#1 RSA of at least 1024 bits, or PKCS#8 Ed25519.
    public init(pem: String) throws(Problem) {
        if let rsa = try? _RSA.Signing.PrivateKey(pemRepresentation: pem) {
            guard rsa.keySizeInBits >= 1024 else {
                throw Problem(description: "holds an RSA key of \(rsa.keySizeInBits) bits; DKIM needs 1024 or more (2048 recommended)")
            }
            self = .rsa(rsa)
        } else if let seed = Self.ed25519Seed(pem: pem), let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: seed) {
            self = .ed25519(key)
        } else {
            throw Problem(description: "is not a PEM RSA or Ed25519 private key")
        }
    }

    /// The key in the file at `path`.
    public init(file path: String) throws(Problem) {
        guard let pem = FileManager.default.contents(atPath: path).flatMap({ String(data: $0, encoding: .utf8) }) else {
            throw Problem(description: "cannot be read")
        }
        try self.init(pem: pem)
    }

    /// `a=` of the signature.
    package var algorithm: String {
        switch self {
        case .rsa: "rsa-sha256"
        case .ed25519: "ed25519-sha256"
        }
    }

    /// The DNS TXT record that publishes the public half.
    public var dnsRecord: String {
        switch self {
        case .rsa(let key): "v=DKIM1; k=rsa; p=" + key.publicKey.derRepresentation.base64EncodedString()
        case .ed25519(let key): "v=DKIM1; k=ed25519; p=" + key.publicKey.rawRepresentation.base64EncodedString()
        }
    }

    /// The 32-byte seed of a PKCS#8 Ed25519 key (`openssl genpkey -algorithm ed25519`): its DER is
    /// always the same 16-byte prefix followed by the seed.
    package static func ed25519Seed(pem: String) -> [UInt8]? {
        let body = pem.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }.joined()
        guard pem.contains("BEGIN PRIVATE KEY"), let der = Data(base64Encoded: body), der.count == 48 else { return nil }
        let prefix: [UInt8] = [0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]
        guard Array(der.prefix(16)) == prefix else { return nil }
        return Array(der.suffix(32))
    }
}
