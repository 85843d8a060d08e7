import HTTPTypes
import Testing

@testable import LinkDomain

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
            let created = try await client.post(BackendClient.admin + "/accounts", ["email": "made@example.com", "password": "secret1"],
                                                headers: [.authorization: "Bearer \(Self.adminKey)"])
            #expect(created.status == .ok)
            let signedIn = try await client.call("accounts:signInWithPassword", ["email": "made@example.com", "password": "secret1"], key: nil,
                                                 headers: [HTTPField.Name("X-Goog-Api-Key")!: "app-key"])
            #expect(signedIn.string("idToken") != nil)
            let link = try await client.post(BackendClient.admin + "/accounts:sendOobCode",
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
