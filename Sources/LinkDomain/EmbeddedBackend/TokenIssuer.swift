import Crypto
import Foundation
import JWTKit

/// The claims of a Firebase ID token.
struct IDTokenClaims: JWTPayload, Equatable {
    struct FirebaseClaim: Codable, Equatable, Sendable {
        var identities: [String: [String]]
        var signInProvider: String
        var tenant: String?

        enum CodingKeys: String, CodingKey {
            case identities
            case signInProvider = "sign_in_provider"
            case tenant
        }
    }

    var iss: String
    var aud: String
    var authTime: Int64
    var userID: String
    var sub: String
    var iat: Int64
    var exp: Int64
    var email: String?
    var emailVerified: Bool?
    var name: String?
    var firebase: FirebaseClaim

    enum CodingKeys: String, CodingKey {
        case iss, aud, sub, iat, exp, email, name, firebase
        case authTime = "auth_time"
        case userID = "user_id"
        case emailVerified = "email_verified"
    }

    func verify(using _: some JWTAlgorithm) throws {
        // Expiry and revocation are checked by ``TokenIssuer/verify(_:now:)`` against the injected clock.
    }
}

/// Issues and verifies ID tokens (ES256 JWTs, signed with a key generated on first run and kept in
/// the store) and opaque refresh tokens.
actor TokenIssuer {
    static let lifetimeSeconds: Int64 = 3600

    private let store: any AuthStore
    private let projectID: String
    private var keys: JWTKeyCollection?

    init(store: any AuthStore, projectID: String) {
        self.store = store
        self.projectID = projectID
    }

    private func keyCollection() async throws -> JWTKeyCollection {
        if let keys { return keys }
        let pem = try await store.signingKey { ES256PrivateKey().pemRepresentation }
        let collection = await JWTKeyCollection().add(ecdsa: try ES256PrivateKey(pem: pem), kid: "linkdomain-1")
        keys = collection
        return collection
    }

    func idToken(for user: UserRecord, provider: String, authTime: Int64, now: Int64) async throws -> String {
        var identities: [String: [String]] = [:]
        if let email = user.email { identities["email"] = [email] }
        let claims = IDTokenClaims(
            iss: "https://securetoken.google.com/\(projectID)", aud: projectID, authTime: authTime, userID: user.localID,
            sub: user.localID, iat: now, exp: now + Self.lifetimeSeconds, email: user.email,
            emailVerified: user.email == nil ? nil : user.emailVerified, name: user.displayName,
            firebase: .init(identities: identities, signInProvider: provider, tenant: user.tenantID.isEmpty ? nil : user.tenantID))
        return try await keyCollection().sign(claims, kid: "linkdomain-1")
    }

    /// The claims of a token this service signed, or nil when it is forged, malformed or for another project.
    func claims(of token: String) async -> IDTokenClaims? {
        guard let claims = try? await keyCollection().verify(token, as: IDTokenClaims.self), claims.aud == projectID else {
            return nil
        }
        return claims
    }

    static func newRefreshToken() -> String { RandomToken.make(bytes: 32) }
}

/// Unguessable identifiers: codes, refresh tokens, user IDs.
enum RandomToken {
    /// `bytes` random bytes as unpadded base64url.
    static func make(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<bytes).map { _ in generator.next() as UInt8 })
    }

    /// A 28-character user ID from the base62 alphabet, like Firebase's.
    static func localID() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<28).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }
}
