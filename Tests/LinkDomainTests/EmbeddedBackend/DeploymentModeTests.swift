import CryptoExtras
import HTTPTypes
import JWTKit
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("The embedded backend in a deployment")
struct DeploymentModeTests {
    static let adminKey = "admin-key-0123456789abcdef0123456789"

    /// The harness's server as a deployment: its https public base URL, with keys.
    let harness = BackendHarness { configuration in
        configuration.server.forceDevelopmentMode = false
        configuration.backend.clientAPIKeys = ["app-key"]
        configuration.backend.adminKeys = [DeploymentModeTests.adminKey]
    }

    @Test("no code listing, no Bearer owner, no unknown key")
    func emulatorPowersAreGone() async throws {
        try await harness.run { client in
            #expect(harness.configuration.mode == .deployment)
            #expect(try await client.call("accounts:signUp", ["email": "a@example.com", "password": "secret1"], key: "app-key").status == .ok)
            #expect(try await client.get("/emulator/v1/projects/\(BackendHarness.projectID)/oobCodes").status == .notFound)
            let owner = try await client.admin("accounts:lookup", ["email": ["a@example.com"]])
            #expect(owner.status == .unauthorized && owner["users"] == nil)
            let unknown = try await client.call("accounts:signUp", ["email": "b@example.com", "password": "secret1"], key: "demo")
            #expect(unknown.errorMessage == "API key not valid. Please pass a valid API key.")
            let missing = try await client.call("accounts:signUp", ["email": "b@example.com", "password": "secret1"], key: nil)
            #expect(missing.status == .forbidden)
        }
    }

    @Test("configured keys work: the admin key as a bearer token, the API key in X-Goog-Api-Key")
    func configuredKeys() async throws {
        try await harness.run { client in
            let created = try await client.post(
                BackendClient.admin + "/accounts", ["email": "made@example.com", "password": "secret1"],
                headers: [.authorization: "Bearer \(Self.adminKey)"])
            #expect(created.status == .ok)
            let signedIn = try await client.call(
                "accounts:signInWithPassword", ["email": "made@example.com", "password": "secret1"], key: nil,
                headers: [HTTPField.Name("X-Goog-Api-Key")!: "app-key"])
            #expect(signedIn.string("idToken") != nil)
            let link = try await client.post(
                BackendClient.admin + "/accounts:sendOobCode",
                ["requestType": "PASSWORD_RESET", "email": "made@example.com", "returnOobLink": true],
                headers: [.authorization: "Bearer \(Self.adminKey)"])
            #expect(link.string("oobLink")?.hasPrefix("https://links.example.com/__/auth/action?") == true)
        }
    }
}

@Suite("Request types and action modes")
struct RequestTypeTests {
    @Test("one mapping, each way the inverse of the other")
    func inverse() {
        for type in OobRequestType.allCases { #expect(type.mode.requestType == type) }
        for mode in ActionMode.allCases { #expect(mode.requestType.mode == mode) }
    }
}

@Suite("Custom tokens in a deployment: signed by the configured service account, or refused")
struct DeploymentCustomTokenTests {
    struct Claims: JWTPayload {
        var iss: String
        var sub: String
        var aud: String
        var uid: String
        var iat: Int64
        var exp: Int64
        func verify(using _: some JWTAlgorithm) throws {}
    }

    static func serviceAccount() throws -> (account: ServiceAccount, key: JWTKit.Insecure.RSA.PrivateKey) {
        let pem = try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation
        let account = ServiceAccount(
            clientEmail: "minter@demo.iam.gserviceaccount.com", privateKeyID: "key-1", privateKeyPEM: pem,
            projectID: "demo", tokenURI: "https://oauth2.googleapis.com/token")
        return (account, try JWTKit.Insecure.RSA.PrivateKey(pem: pem))
    }

    static func token(signedWith key: JWTKit.Insecure.RSA.PrivateKey, issuer: String, now: Int64, kid: String = "key-1") async throws -> String {
        let keys = await JWTKeyCollection().add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        return try await keys.sign(
            Claims(iss: issuer, sub: issuer, aud: AccountService.customTokenAudience, uid: "minted-1", iat: now, exp: now + 3600),
            kid: JWKIdentifier(string: kid))
    }

    @Test("a token the service account signed signs in; an unsigned one, another key's, or an expired one is refused")
    func signedOnly() async throws {
        let (account, key) = try Self.serviceAccount()
        let other = try Self.serviceAccount().key
        let harness = BackendHarness { configuration in
            configuration.server.forceDevelopmentMode = false
            configuration.backend.clientAPIKeys = ["app-key"]
            configuration.backend.adminKeys = [DeploymentModeTests.adminKey]
            configuration.backend.serviceAccount = account
        }
        let now = harness.clock.nowSeconds
        try await harness.run { client in
            let good = try await Self.token(signedWith: key, issuer: account.clientEmail, now: now)
            let signedIn = try await client.call("accounts:signInWithCustomToken", ["token": good, "returnSecureToken": true], key: "app-key")
            #expect(signedIn.status == .ok && signedIn.string("idToken") != nil, "\(signedIn.json)")
            let forged = try await Self.token(signedWith: other, issuer: account.clientEmail, now: now)
            #expect(
                try await client.call("accounts:signInWithCustomToken", ["token": forged], key: "app-key").errorMessage?
                    .hasPrefix("INVALID_CUSTOM_TOKEN") == true)
            let expired = try await Self.token(signedWith: key, issuer: account.clientEmail, now: now - 7200)
            #expect(
                try await client.call("accounts:signInWithCustomToken", ["token": expired], key: "app-key").errorMessage?
                    .hasPrefix("INVALID_CUSTOM_TOKEN") == true)
            let payload = #"{"uid":"x","aud":"\#(AccountService.customTokenAudience)"}"#
            let unsigned = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + Base64URL.encode(Array(payload.utf8)) + "."
            #expect(
                try await client.call("accounts:signInWithCustomToken", ["token": unsigned], key: "app-key").errorMessage?
                    .hasPrefix("INVALID_CUSTOM_TOKEN") == true)
            #expect(try await client.call("accounts:signInWithCustomToken", ["token": payload], key: "app-key").status == .badRequest)
        }
    }

    @Test("without a service account, a deployment takes no custom tokens at all")
    func noServiceAccount() async throws {
        try await DeploymentModeTests().harness.run { client in
            let answer = try await client.call("accounts:signInWithCustomToken", ["token": #"{"uid":"x"}"#], key: "app-key")
            #expect(answer.errorMessage == "OPERATION_NOT_ALLOWED : custom tokens need backend.serviceAccountFile in a deployment")
        }
    }
}
