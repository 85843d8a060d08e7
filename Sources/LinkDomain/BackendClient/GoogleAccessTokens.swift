import AsyncHTTPClient
import Foundation
import JWTKit
import LinkDomainCore
import LinkDomainStorage
import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1

/// OAuth2 access tokens for Google's admin APIs, as a service account gets them: an RS256 JWT
/// assertion signed with its key, exchanged at its `token_uri` (RFC 7523), kept until a minute
/// before it expires. Concurrent callers share one exchange.
actor GoogleAccessTokens {
    static let scope = "https://www.googleapis.com/auth/identitytoolkit https://www.googleapis.com/auth/cloud-platform"

    let account: ServiceAccount
    let client: HTTPClient
    let clock: any WallClock
    let timeout: TimeAmount
    private var keys: JWTKeyCollection?
    private var cached: (token: String, expiresAt: Int64)?
    private var pending: Task<(token: String, expiresAt: Int64), any Error>?

    init(account: ServiceAccount, client: HTTPClient, clock: any WallClock, timeout: TimeAmount) {
        self.account = account
        self.client = client
        self.clock = clock
        self.timeout = timeout
    }

    struct Assertion: JWTPayload {
        var iss: String
        var scope: String
        var aud: String
        var iat: Int64
        var exp: Int64
        func verify(using _: some JWTAlgorithm) throws {}
    }

    struct TokenAnswer: Decodable {
        var access_token: String
        var expires_in: Int64?
    }

    /// A valid access token.
    func token() async throws(BackendError) -> String {
        let now = clock.nowSeconds
        if let cached, cached.expiresAt - 60 > now { return cached.token }
        let task = pending ?? Task { try await self.exchange() }
        pending = task
        defer { pending = nil }
        do {
            let fresh = try await task.value
            cached = fresh
            return fresh.token
        } catch let error as BackendError {
            throw error
        } catch {
            throw .unreachable
        }
    }

    private func exchange() async throws -> (token: String, expiresAt: Int64) {
        let now = clock.nowSeconds
        let assertion = try await signer().sign(
            Assertion(iss: account.clientEmail, scope: Self.scope, aud: account.tokenURI, iat: now, exp: now + 3600),
            kid: account.privateKeyID.isEmpty ? nil : JWKIdentifier(string: account.privateKeyID))
        var request = HTTPClientRequest(url: account.tokenURI)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(
            ByteBuffer(string: "grant_type=\(ActionLinkEncoder.percentEncode("urn:ietf:params:oauth:grant-type:jwt-bearer"))&assertion=\(assertion)"))
        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            response = try await client.execute(request, timeout: timeout)
            body = try await response.body.collect(upTo: 1 << 16)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            throw BackendError.timedOut
        } catch {
            throw BackendError.unreachable
        }
        guard response.status == .ok, let answer = try? JSONDecoder().decode(TokenAnswer.self, from: Data(buffer: body)) else {
            // Google's refusal (`invalid_grant`: a deleted key, a clock far off) names no secret.
            let detail = String(buffer: body).prefix(200)
            throw BackendError.rejected(BackendRefusal(.insufficientPermission, detail: "the token endpoint refused the service account: \(detail)"))
        }
        let lifetime = min(max(answer.expires_in ?? 3600, 0), 86_400)
        return (answer.access_token, clock.nowSeconds + lifetime)
    }

    private func signer() async throws -> JWTKeyCollection {
        if let keys { return keys }
        let collection = await JWTKeyCollection().add(
            rsa: try Insecure.RSA.PrivateKey(pem: account.privateKeyPEM), digestAlgorithm: .sha256,
            kid: account.privateKeyID.isEmpty ? nil : JWKIdentifier(string: account.privateKeyID))
        keys = collection
        return collection
    }
}
