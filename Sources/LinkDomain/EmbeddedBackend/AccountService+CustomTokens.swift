import Foundation
import JWTKit
import LinkDomainCore
import LinkDomainStorage

/// Signing in with a custom token an app server minted (`accounts:signInWithCustomToken`), and
/// session cookies made from ID tokens (`createSessionCookie`).
extension AccountService {
    /// The audience every custom token names.
    static let customTokenAudience = "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"

    func signInWithCustomToken(_ request: SignInWithCustomTokenRequest, _ context: CallContext) async throws -> VerifyCustomTokenResponse {
        guard let token = request.token else { throw IdentityToolkitError(.missingCustomToken) }
        if settings.mode == .deployment { try await verifySignature(ofCustomToken: token) }
        let payload = try customTokenPayload(token)
        let uid: String
        switch payload["uid"] ?? payload["user_id"] {
        case .string(let value)?: uid = value
        case .integer(let value)?: uid = String(value)
        default: throw IdentityToolkitError(.missingIdentifier)
        }
        guard !uid.isEmpty, uid.utf8.count <= 128 else { throw IdentityToolkitError(.invalidCustomToken, detail: "uid must be 1 to 128 characters") }
        var extraClaims: String?
        if case .object(let claims)? = payload["claims"], !claims.isEmpty {
            let text = String(decoding: try JSONEncoder().encode(JSONValue.object(claims)), as: UTF8.self)
            extraClaims = try AccountAttributes.customClaims(text)
        }
        let tenantID = payload["tenant_id"].flatMap { if case .string(let tenant) = $0 { tenant } else { nil } } ?? context.tenantID
        return try await retryingLostRaces {
            try await signIn(uid: uid, tenantID: tenantID, extraClaims: extraClaims)
        }
    }

    private func signIn(uid: String, tenantID: String, extraClaims: String?) async throws -> VerifyCustomTokenResponse {
        let now = clock.nowMilliseconds()
        var isNewUser = false
        var user: UserRecord
        if let existing = try await store.user(tenantID: tenantID, localID: uid) {
            if existing.disabled { throw IdentityToolkitError.userDisabled }
            try await store.recordSignIn(of: existing, lastLoginAt: now, lastRefreshAt: now)
            user = existing
        } else {
            isNewUser = true
            user = UserRecord(tenantID: tenantID, localID: uid, email: nil, createdAt: now, validSince: now / 1000)
        }
        user.lastLoginAt = now
        user.lastRefreshAt = now
        if isNewUser { try await insert(user) }
        var response = VerifyCustomTokenResponse(isNewUser: isNewUser)
        response.add(try await newSession(for: user, provider: "custom", now: now, extraClaims: extraClaims))
        return response
    }

    /// In a deployment a custom token must be an RS256 JWT signed with the configured service
    /// account's key, issued by that account, not expired.
    func verifySignature(ofCustomToken token: String) async throws {
        guard let account = settings.serviceAccount else {
            throw IdentityToolkitError(.operationNotAllowed, detail: "custom tokens need backend.serviceAccountFile in a deployment")
        }
        let found: CustomTokenClaims?
        do {
            found = try await tokens.customTokenClaims(token, signedBy: account, as: CustomTokenClaims.self)
        } catch {
            throw IdentityToolkitError.internalError  // the configured key itself cannot be read
        }
        guard let claims = found else {
            throw IdentityToolkitError(.invalidCustomToken, detail: "the signature is not the configured service account's")
        }
        guard claims.iss == account.clientEmail, claims.exp > clock.nowSeconds else {
            throw IdentityToolkitError(.invalidCustomToken, detail: "expired, or not issued by the configured service account")
        }
    }

    /// What a custom token's signature check reads.
    struct CustomTokenClaims: JWTPayload {
        var iss: String
        var exp: Int64

        func verify(using _: some JWTAlgorithm) throws {
            // Issuer and expiry are checked against the configuration and the injected clock.
        }
    }

    /// A custom token's claims: an unsigned JWT (what the admin SDKs mint for an emulator), a signed
    /// one (its signature checked beforehand in a deployment), or in development plain JSON, as the
    /// Firebase Auth emulator takes them.
    func customTokenPayload(_ token: String) throws -> [String: JSONValue] {
        if token.hasPrefix("{"), settings.mode == .development {
            guard case .object(let payload)? = try? JSONDecoder().decode(JSONValue.self, from: Data(token.utf8)) else {
                throw IdentityToolkitError(.invalidCustomToken, detail: "((Auth Emulator only accepts strict JSON or JWTs as fake custom tokens.))")
            }
            return payload
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Base64URL.decode(parts[1]),
            case .object(let payload)? = try? JSONDecoder().decode(JSONValue.self, from: data)
        else { throw IdentityToolkitError(.invalidCustomToken, detail: "Invalid assertion format") }
        guard payload["aud"] == .string(Self.customTokenAudience) else {
            throw IdentityToolkitError(.invalidCustomToken, detail: "Invalid aud (audience): not a custom token (ID tokens cannot be used here)")
        }
        return payload
    }

    /// `createSessionCookie`: the ID token's claims under the session issuer, for `validDuration`
    /// seconds (5 minutes to 2 weeks; 2 weeks when absent).
    func createSessionCookie(_ request: CreateSessionCookieRequest, _ context: CallContext) async throws -> SessionCookieResponse {
        guard context.isAdmin else { throw IdentityToolkitError.insufficientPermission }
        guard let idToken = request.idToken else { throw IdentityToolkitError.missingIDToken }
        let lifetime = try request.validDuration.within(300...1_209_600, else: IdentityToolkitError(.invalidDuration)) ?? 1_209_600
        // The account must still be there, enabled, and the token not revoked; its own tenant's.
        let claims = try await authenticated(idToken: idToken, tenantID: nil).claims
        return SessionCookieResponse(sessionCookie: try await tokens.sessionCookie(from: claims, lifetime: lifetime, now: clock.nowSeconds))
    }
}
