import AsyncHTTPClient
import Foundation
import JWTKit
import LinkDomainCore
import LinkDomainStorage
import NIOCore
import NIOHTTP1

/// Verifies Firebase ID tokens as firebase-admin's `verifyIdToken` does, with the keys the backend
/// publishes (Google's at `www.googleapis.com/service_accounts/v1/jwk/securetoken@...`): fetched
/// when first needed, kept as long as their `Cache-Control: max-age` says (an hour when it says
/// nothing, a day at most), fetched again (at most once a minute) when a token names a key the set lacks.
actor IDTokenKeys {
    let url: String
    let projectID: String
    let client: HTTPClient
    let clock: any WallClock
    let timeout: TimeAmount
    private var keys: JWTKeyCollection?
    private var expiresAt: Int64 = 0
    /// When the set was last fetched: forged tokens naming unknown keys refetch it at most once a minute.
    private var fetchedAt: Int64 = 0

    init(url: String, projectID: String, client: HTTPClient, clock: any WallClock, timeout: TimeAmount) {
        self.url = url
        self.projectID = projectID
        self.client = client
        self.clock = clock
        self.timeout = timeout
    }

    /// The account of a token signed by a published key, issued for this project (and `tenantID`),
    /// not expired, not from the future; `INVALID_ID_TOKEN` (or `TOKEN_EXPIRED`) otherwise.
    func verify(_ token: String, tenantID: String?) async throws(BackendError) -> VerifiedAccount {
        var claims: IDTokenClaims?
        for refresh in [false, true] {
            let keys = try await current(refresh: refresh)
            if let verified = try? await keys.verify(token, as: IDTokenClaims.self) {
                claims = verified
                break
            }
            // A key the set lacks may be a new one: fetch again, once, and not more than once a minute.
            if refresh || clock.nowSeconds >= expiresAt || clock.nowSeconds - fetchedAt < 60 { break }
        }
        guard let claims else { throw .rejected(BackendRefusal(.invalidIDToken)) }
        let now = clock.nowSeconds
        guard claims.aud == projectID, claims.iss == "https://securetoken.google.com/\(projectID)", !claims.sub.isEmpty,
            claims.iat <= now + 300, claims.authTime <= now + 300, claims.firebase.tenant == tenantID
        else { throw .rejected(BackendRefusal(.invalidIDToken)) }
        guard claims.exp > now else { throw .rejected(BackendRefusal(.tokenExpired)) }
        return VerifiedAccount(localID: claims.sub, email: claims.email)
    }

    private func current(refresh: Bool) async throws(BackendError) -> JWTKeyCollection {
        if let keys, !refresh, clock.nowSeconds < expiresAt { return keys }
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        let body: ByteBuffer
        let maxAge: Int64
        do {
            let response = try await client.execute(request, timeout: timeout)
            guard response.status == .ok else { throw BackendError.invalidResponse }
            maxAge = Self.maxAge(response.headers.first(name: "Cache-Control"))
            body = try await response.body.collect(upTo: 1 << 18)
        } catch let error as BackendError {
            throw error
        } catch {
            throw .unreachable
        }
        let collection = JWTKeyCollection()
        do {
            try await collection.add(jwksJSON: String(buffer: body))
        } catch {
            throw .invalidResponse
        }
        keys = collection
        fetchedAt = clock.nowSeconds
        expiresAt = clock.nowSeconds + maxAge
        return collection
    }

    /// `max-age` of a `Cache-Control` value, between a minute and a day; an hour when absent.
    static func maxAge(_ header: String?) -> Int64 {
        guard let header else { return 3600 }
        for directive in header.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2, parts[0].lowercased() == "max-age", let seconds = Int64(parts[1].prefix(9)) { return min(max(seconds, 60), 86_400) }
        }
        return 3600
    }
}
