import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import LinkDomain

/// Runs the real server on loopback with the embedded backend on a fresh SQLite file and a clock
/// the test moves.
struct BackendHarness {
    static let projectID = "demo-linkdomain"

    let databasePath: String
    let clock: ManualBackendClock
    let configuration: LinkDomainConfiguration

    init(emailEnumerationProtection: Bool = true, databasePath: String? = nil, clock: ManualBackendClock? = nil) {
        self.databasePath = databasePath
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("linkdomain-test-\(UUID().uuidString)/auth.sqlite").path
        self.clock = clock ?? ManualBackendClock(milliseconds: 1_800_000_000_000)
        configuration = LinkDomainConfiguration(
            publicBaseURL: "https://links.example.com", port: 0,
            appleApps: [AppleApp(teamID: "ABCDE12345", bundleID: "com.example.app")],
            authorizedDomains: ["app.example.com", "links.example.com"],
            emailEnumerationProtection: emailEnumerationProtection, sqlitePath: self.databasePath)
    }

    func run<Value>(setup: TestingSetup = .live, _ test: @Sendable (BackendClient) async throws -> Value) async throws -> Value {
        let backend = try EmbeddedBackend.open(configuration: configuration, clock: clock, logger: Logger(label: "test"))
        let app = LinkDomainApplication.build(
            configuration: configuration, files: try AssociationFiles(configuration: configuration), backend: backend,
            logger: Logger(label: "test"))
        return try await app.test(setup) { client in try await test(BackendClient(client: client)) }
    }
}

/// A JSON answer: the status and the decoded body.
struct Answer: @unchecked Sendable {
    var status: HTTPResponse.Status
    var json: [String: Any]

    var errorMessage: String? { (json["error"] as? [String: Any])?["message"] as? String }
    subscript(key: String) -> Any? { json[key] }
    func string(_ key: String) -> String? { json[key] as? String }
}

struct BackendClient: Sendable {
    let client: any TestClientProtocol

    static let v1 = "/identitytoolkit.googleapis.com/v1"
    static let admin = "/identitytoolkit.googleapis.com/v1/projects/\(BackendHarness.projectID)"

    /// A client call: `POST /identitytoolkit.googleapis.com/v1/accounts:NAME?key=...`.
    func call(_ operation: String, _ body: [String: Any], key: String? = "test-key", headers: HTTPFields = [:]) async throws -> Answer {
        let path = "\(Self.v1)/\(operation)" + (key.map { "?key=\($0)" } ?? "")
        return try await post(path, body, headers: headers)
    }

    /// An admin call, as firebase-admin makes it against an emulator.
    func admin(_ operation: String, _ body: [String: Any], tenant: String? = nil) async throws -> Answer {
        let path = Self.admin + (tenant.map { "/tenants/\($0)" } ?? "") + "/\(operation)"
        return try await post(path, body, headers: [.authorization: "Bearer owner"])
    }

    func post(_ path: String, _ body: [String: Any], headers: HTTPFields = [:]) async throws -> Answer {
        var headers = headers
        headers[.contentType] = "application/json"
        let data = try JSONSerialization.data(withJSONObject: body)
        return try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(data: data)) { response in
            Self.answer(response)
        }
    }

    func get(_ path: String) async throws -> Answer {
        try await client.execute(uri: path, method: .get) { Self.answer($0) }
    }

    private static func answer(_ response: TestResponse) -> Answer {
        let object = try? JSONSerialization.jsonObject(with: Data(buffer: response.body))
        return Answer(status: response.status, json: object as? [String: Any] ?? [:])
    }

    // MARK: Flows the tests share

    /// Signs up with a password and returns the answer (idToken, refreshToken, localId).
    func signUp(_ email: String, password: String = "correct horse") async throws -> Answer {
        let answer = try await call("accounts:signUp", ["email": email, "password": password, "returnSecureToken": true])
        #expect(answer.status == .ok, "\(answer.json)")
        return answer
    }

    /// Asks for a code as an admin and returns it.
    func code(_ requestType: String, email: String, extra: [String: Any] = [:]) async throws -> String {
        var body: [String: Any] = ["requestType": requestType, "email": email, "returnOobLink": true]
        body.merge(extra) { $1 }
        let answer = try await admin("accounts:sendOobCode", body)
        #expect(answer.status == .ok, "\(answer.json)")
        return try #require(answer.string("oobCode"))
    }

    func oobCodes() async throws -> [[String: Any]] {
        try await get("/emulator/v1/projects/\(BackendHarness.projectID)/oobCodes").json["oobCodes"] as? [[String: Any]] ?? []
    }
}
