import Crypto
import CryptoExtras
import Foundation
import JWTKit
import LinkDomainCore
import LinkDomainStorage

/// Issues and verifies ID tokens (ES256 JWTs, signed with a key generated on first run and kept in
/// the store) and opaque refresh tokens.
package actor TokenIssuer {
    static let lifetimeSeconds: Int64 = 3600

    private let store: any AuthStore
    private let projectID: String
    private var keys: JWTKeyCollection?
    /// The service account's public key, read from its PEM once, for custom tokens.
    private var customTokenKeys: JWTKeyCollection?

    package init(store: any AuthStore, projectID: String) {
        self.store = store
        self.projectID = projectID
    }

    /// The signing key's public half, read from the store once.
    private var publicKey: ES256PublicKey?

    private func keyCollection() async throws -> JWTKeyCollection {
        if let keys { return keys }
        let pem = try await store.signingKey(.idTokens) { ES256PrivateKey().pemRepresentation }
        let key = try ES256PrivateKey(pem: pem)
        let collection = await JWTKeyCollection().add(ecdsa: key, kid: "linkdomain-1")
        keys = collection
        publicKey = key.publicKey
        return collection
    }

    /// The keys that verify this backend's ID tokens, as a JWK set: what Google publishes for
    /// Firebase at `www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com`.
    func publishedKeys() async throws -> JWKSet {
        _ = try await keyCollection()
        guard let parameters = publicKey?.parameters else { return JWKSet(keys: []) }
        return JWKSet(keys: [.init(kty: "EC", alg: "ES256", kid: "linkdomain-1", crv: "P-256", x: parameters.x, y: parameters.y)])
    }

    /// A JSON Web Key Set of public keys: EC keys (`crv`, `x`, `y`) or RSA keys (`n`, `e`); the
    /// members a key does not have are left out.
    struct JWKSet: Codable, Sendable {
        struct Key: Codable, Sendable {
            var kty: String
            var alg: String
            var use = "sig"
            var kid: String
            var crv: String?
            var x: String?
            var y: String?
            var n: String?
            var e: String?
        }

        var keys: [Key]
    }

    /// An ID token for `user`, signed in by `provider` (`password`, `anonymous`, `custom`) at `authTime`
    /// (seconds; a refresh keeps the original sign-in's), issued at `now`.
    ///
    /// - Parameter extraClaims: a custom token's own claims (JSON object text), beside the account's.
    func idToken(for user: UserRecord, provider: String, authTime: Int64, now: Int64, extraClaims: String? = nil) async throws -> String {
        var claims = Self.claims(for: user, provider: provider, projectID: projectID, authTime: authTime, now: now)
        for (name, value) in Self.object(extraClaims) { claims.custom[name] = value }
        return try await keyCollection().sign(claims, kid: "linkdomain-1")
    }

    /// The members of a JSON object's text; none for nil or anything else.
    static func object(_ text: String?) -> [String: JSONValue] {
        guard let text, case .object(let members)? = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else { return [:] }
        return members
    }

    /// A session cookie: the ID token's claims under the session issuer, valid for `lifetime` seconds
    /// from `now`, signed RS256 with a key of its own (as Google signs them; the keys Google
    /// publishes for session cookies are RSA keys).
    func sessionCookie(from claims: IDTokenClaims, lifetime: Int64, now: Int64) async throws -> String {
        var cookie = claims
        cookie.iss = sessionCookieIssuer
        cookie.iat = now
        cookie.exp = now + lifetime
        return try await sessionCookieKeys().keys.sign(cookie, kid: JWKIdentifier(string: Self.sessionCookieKeyID))
    }

    static let sessionCookieKeyID = "linkdomain-session-1"
    private var sessionCookieSigner: (keys: JWTKeyCollection, publicKey: JWTKit.Insecure.RSA.PublicKey)?

    /// The session cookies' RSA key, made on first use and kept in the store.
    private func sessionCookieKeys() async throws -> (keys: JWTKeyCollection, publicKey: JWTKit.Insecure.RSA.PublicKey) {
        if let sessionCookieSigner { return sessionCookieSigner }
        let pem = try await store.signingKey(.sessionCookies) { try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation }
        let key = try JWTKit.Insecure.RSA.PrivateKey(pem: pem)
        let keys = await JWTKeyCollection().add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: Self.sessionCookieKeyID))
        let signer = (keys, key.publicKey)
        sessionCookieSigner = signer
        return signer
    }

    /// The keys that verify session cookies, in the shape of Identity Toolkit's
    /// `GetSessionCookiePublicKeysResponse` (JWKs with `kty`, `alg`, `use`, `kid`, `n`, `e`).
    func sessionCookiePublicKeys() async throws -> JWKSet {
        let (modulus, exponent) = try await sessionCookieKeys().publicKey.getKeyPrimitives()
        return JWKSet(keys: [
            .init(
                kty: "RSA", alg: "RS256", kid: Self.sessionCookieKeyID, n: Base64URL.encode(Array(modulus)),
                e: Base64URL.encode(Array(exponent)))
        ])
    }

    static func claims(for user: UserRecord, provider: String, projectID: String, authTime: Int64, now: Int64) -> IDTokenClaims {
        var identities: [String: [String]] = [:]
        if let email = user.email { identities["email"] = [email] }
        if let phone = user.phoneNumber { identities["phone"] = [phone] }
        let custom = object(user.customAttributes)
        return IDTokenClaims(
            iss: "https://securetoken.google.com/\(projectID)", aud: projectID, authTime: authTime, userID: user.localID,
            sub: user.localID, iat: now, exp: now + lifetimeSeconds, email: user.email,
            emailVerified: user.email == nil ? nil : user.emailVerified, phoneNumber: user.phoneNumber, name: user.displayName,
            picture: user.photoURL, providerID: provider == "anonymous" ? "anonymous" : nil,
            firebase: .init(identities: identities, signInProvider: provider, tenant: user.tenantID.isEmpty ? nil : user.tenantID),
            custom: custom)
    }

    /// Who a token this service signs is issued by: ID tokens and session cookies share the key
    /// and the claims, and only the issuer tells them apart.
    var idTokenIssuer: String { "https://securetoken.google.com/\(projectID)" }
    var sessionCookieIssuer: String { "https://session.firebase.google.com/\(projectID)" }

    /// The claims of an ID token this service signed, or nil when it is forged, malformed, for
    /// another project, or not an ID token (a session cookie is not: it lives two weeks and is
    /// meant for a server's cookie jar, and taken as an ID token it would outlive every revocation
    /// an hour-long token is built around).
    func claims(of token: String) async -> IDTokenClaims? {
        guard let claims = try? await keyCollection().verify(token, as: IDTokenClaims.self), claims.aud == projectID,
            claims.iss == idTokenIssuer, !claims.sub.isEmpty, claims.sub == claims.userID
        else {
            return nil
        }
        return claims
    }

    /// The claims of a custom token if `account`'s key signed it (RS256); nil for any other token.
    func customTokenClaims<Claims: JWTPayload>(_ token: String, signedBy account: ServiceAccount, as _: Claims.Type) async throws -> Claims? {
        let keys: JWTKeyCollection
        if let customTokenKeys {
            keys = customTokenKeys
        } else {
            let key = try Insecure.RSA.PrivateKey(pem: account.privateKeyPEM).publicKey
            keys = JWTKeyCollection()
            // Tokens name the key (`kid`, the file's private_key_id); one without a kid gets the same key.
            if !account.privateKeyID.isEmpty { await keys.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: account.privateKeyID)) }
            await keys.add(rsa: key, digestAlgorithm: .sha256)
            customTokenKeys = keys
        }
        return try? await keys.verify(token, as: Claims.self)
    }

    static func newRefreshToken() -> String { RandomToken.make(bytes: 32) }
}
