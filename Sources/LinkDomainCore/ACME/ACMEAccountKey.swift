import Crypto
import Foundation

/// An ACME account's key (P-256) and what is made from it: its JWK, its thumbprint (RFC 7638)
/// and the JWS every request to the CA is (RFC 8555 §6.2, RFC 7515's flattened JSON).
public struct ACMEAccountKey: Sendable {
    public let key: P256.Signing.PrivateKey

    public init(key: P256.Signing.PrivateKey = P256.Signing.PrivateKey()) {
        self.key = key
    }

    public init(pem: String) throws {
        key = try P256.Signing.PrivateKey(pemRepresentation: pem)
    }

    public var pem: String { key.pemRepresentation }

    /// The public key as a JWK, its members in the order RFC 7638's thumbprint needs.
    public var jwk: String {
        let raw = key.publicKey.rawRepresentation
        return #"{"crv":"P-256","kty":"EC","x":"\#(Base64URL.encode(Array(raw.prefix(32))))","y":"\#(Base64URL.encode(Array(raw.suffix(32))))"}"#
    }

    /// RFC 7638: base64url of the SHA-256 of the JWK's required members, in order, no spaces.
    public var thumbprint: String { Base64URL.encode(Array(SHA256.hash(data: Data(jwk.utf8)))) }

    /// The key authorization a challenge's token is answered with (RFC 8555 §8.1).
    public func keyAuthorization(token: String) -> String { "\(token).\(thumbprint)" }

    /// How the request names its signer: the JWK (before the account exists), else the account's URL.
    public enum Signer: Sendable {
        case jwk
        case account(String)
    }

    /// The request body: a JWS over `payload` (nil: POST-as-GET's empty payload).
    public func signedBody(url: String, nonce: String, payload: [UInt8]?, signer: Signer) throws -> [UInt8] {
        let named: String =
            switch signer {
            case .jwk: #""jwk":\#(jwk)"#
            case .account(let accountURL): #""kid":\#(try Self.jsonString(accountURL))"#
            }
        let protected = #"{"alg":"ES256",\#(named),"nonce":\#(try Self.jsonString(nonce)),"url":\#(try Self.jsonString(url))}"#
        let protectedPart = Base64URL.encode(Array(protected.utf8))
        let payloadPart = payload.map { Base64URL.encode($0) } ?? ""
        let signature = try key.signature(for: Data("\(protectedPart).\(payloadPart)".utf8))
        let body = #"{"protected":"\#(protectedPart)","payload":"\#(payloadPart)","signature":"\#(Base64URL.encode(Array(signature.rawRepresentation)))"}"#
        return Array(body.utf8)
    }

    /// An external account binding (RFC 8555 §7.3.4): this account's JWK, signed with the CA's HMAC
    /// key (HS256) under its key ID, for `newAccount`'s payload.
    public func externalAccountBinding(keyID: String, macKey: [UInt8], url: String) throws -> String {
        let protected = #"{"alg":"HS256","kid":\#(try Self.jsonString(keyID)),"url":\#(try Self.jsonString(url))}"#
        let protectedPart = Base64URL.encode(Array(protected.utf8)), payloadPart = Base64URL.encode(Array(jwk.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(protectedPart).\(payloadPart)".utf8), using: SymmetricKey(data: macKey))
        return #"{"protected":"\#(protectedPart)","payload":"\#(payloadPart)","signature":"\#(Base64URL.encode(Array(mac)))"}"#
    }

    /// A JSON string literal of `value` (quotes and escapes from JSONEncoder).
    static func jsonString(_ value: String) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
