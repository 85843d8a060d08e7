import AsyncHTTPClient
import LinkDomainCore
import LinkDomainStorage
import NIOCore

/// ``ActionLinkSource`` over a remote backend's admin API: Google Identity Toolkit (authenticated
/// with the service account's OAuth token) or a Firebase Auth emulator (`Bearer owner`).
struct AdminActionLinks: ActionLinkSource {
    enum Credentials: Sendable {
        case google(GoogleAccessTokens)
        /// The emulator takes this fixed bearer token as an admin's.
        case fixed(String)
    }

    /// `https://identitytoolkit.googleapis.com/v1` or the emulator's equivalent.
    let baseURL: String
    let projectID: String
    let apiKey: String
    let credentials: Credentials
    /// Google's published keys, for checking ID tokens here; nil for the emulator, whose tokens are
    /// unsigned: it is asked (`accounts:lookup`) instead.
    let idTokenKeys: IDTokenKeys?
    let client: HTTPClient
    let timeout: TimeAmount

    struct LinkAnswer: Decodable {
        var oobLink: String?
    }

    struct LookupAnswer: Decodable {
        struct User: Decodable {
            var localId: String
            var email: String?
        }

        var users: [User]?
    }

    /// Google's codes live 1 hour (reset), 6 hours (sign-in) and 3 days (verify), as Firebase states
    /// (docs/mail.md, "Durations"); the others' and an emulator's lifetimes are not stated.
    func codeLifetimeSeconds(_ type: OobRequestType) -> Int? {
        guard case .google = credentials else { return nil }
        return switch type {
        case .passwordReset: 3600
        case .emailSignIn: 21_600
        case .verifyEmail: 259_200
        case .verifyAndChangeEmail, .recoverEmail, .revertSecondFactorAddition: nil
        }
    }

    func actionLink(_ request: ActionLinkRequest) async throws(BackendError) -> String? {
        let tenantPath = request.tenantID.map { "/tenants/\(ActionLinkEncoder.percentEncode($0))" } ?? ""
        let answer: LinkAnswer
        do {
            answer = try await post("projects/\(projectID)\(tenantPath)/accounts:sendOobCode", request.adminRequest)
        } catch {
            if case .rejected(let refusal) = error, refusal.code == .emailNotFound || refusal.code == .userNotFound { return nil }
            throw error
        }
        guard let link = answer.oobLink else { throw .invalidResponse }
        return link
    }

    func verify(idToken: String, tenantID: String?) async throws(BackendError) -> VerifiedAccount {
        if let idTokenKeys { return try await idTokenKeys.verify(idToken, tenantID: tenantID) }
        // The emulator checks the token's signature, project, tenant and expiry, and that the
        // account still exists and the token was not revoked.
        var body: [String: JSONValue] = ["idToken": .string(idToken)]
        if let tenantID { body["tenantId"] = .string(tenantID) }
        let answer: LookupAnswer = try await post("accounts:lookup?key=\(ActionLinkEncoder.percentEncode(apiKey))", JSONValue.object(body), asAdmin: false)
        guard let user = answer.users?.first else { throw .rejected(BackendRefusal(.invalidIDToken)) }
        return VerifiedAccount(localID: user.localId, email: user.email)
    }

    /// Google's access token (cached for its hour): a service account the backend refuses fails here.
    func checkCredentials() async throws(BackendError) {
        if case .google(let tokens) = credentials { _ = try await tokens.token() }
    }

    private func post<Answer: Decodable>(_ path: String, _ body: some Encodable, asAdmin: Bool = true) async throws(BackendError) -> Answer {
        var authorization: String?
        if asAdmin {
            switch credentials {
            case .google(let tokens): authorization = "Bearer " + (try await tokens.token())
            case .fixed(let token): authorization = "Bearer " + token
            }
        }
        return try await IdentityToolkitHTTP.post("\(baseURL)/\(path)", body, authorization: authorization, client: client, timeout: timeout)
    }
}
