import Foundation
import Logging
import Testing

@testable import LinkDomain
@testable import LinkDomainStorage

/// Shared inputs for the tests.
enum Fixtures {
    /// `text` with every hand-off token (random per page: a fresh ID and nonce) replaced by `TOKEN`,
    /// so two renderings of one answer compare equal.
    static func withoutHandoffTokens(_ text: String) -> String {
        text.replacing(/(__\/handoff\/|ldh\.|ldh%2E)[A-Za-z0-9_-]+/) { "\($0.output.1)TOKEN" }
    }

    /// The repository's root, where the demo configuration and association file live.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let fingerprintA = "14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5"
    static let fingerprintB = "AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89"

    /// The keys of the deployment ``multiAppJSON`` describes.
    static let apiKey = "fixture-api-key"
    static let adminKey = "fixture-admin-key-0123456789abcdef0123"

    /// Two Apple apps (the second with extra paths, web credentials and an App Clip) and two Android apps.
    static let multiAppJSON = """
        {
          "publicBaseURL": "https://links.example.com",
          "server": { "host": "127.0.0.1", "port": 0 },
          "apple": {
            "apps": [
              { "teamID": "ABCDE12345", "bundleID": "com.example.mail", "appStoreID": "1234567890" },
              { "teamID": "ZYXWV98765", "bundleID": "com.example.shop", "paths": ["/open/*", "NOT /open/private/*"],
                "webcredentials": true, "appClip": true }
            ]
          },
          "android": {
            "apps": [
              { "packageName": "com.example.mail", "fingerprints": ["\(fingerprintA)"] },
              { "packageName": "com.example.shop",
                "fingerprints": ["abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789", "\(fingerprintA)"] }
            ]
          },
          "authorizedDomains": ["example.com", "Shop.Example.com"],
          "backend": {
            "kind": "embedded", "apiKeys": ["\(apiKey)"], "adminKeys": ["\(adminKey)"]
          }
        }
        """

    /// The services for ``multiAppJSON``, with a throw-away database and the built-in pages.
    static func services(_ json: String = multiAppJSON) async throws -> LinkDomainServices {
        var configuration = try load(json)
        configuration.storage = .sqlite(path: FileManager.default.temporaryDirectory.appendingPathComponent("linkdomain-\(UUID().uuidString).sqlite").path)
        return try await LinkDomainServices.make(configuration: configuration, logger: Logger(label: "test"))
    }

    /// Stores a code for ann@example.com in the embedded backend, as if it had been mailed: live for
    /// an hour, or already past its lifetime when `expired`.
    static func insertCode(
        _ code: String, type: OobRequestType, newEmail: String? = nil, expired: Bool = false, askedByApp: Bool? = nil,
        into services: LinkDomainServices
    ) async throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try await #require(services.embeddedBackend).service.store.insertCode(
            OobCodeRecord(
                code: code, projectID: "p", tenantID: "", requestType: type, email: "ann@example.com", newEmail: newEmail, localID: nil,
                link: "", createdAt: now, expiresAt: expired ? now - 1 : now + 3_600_000, askedByApp: askedByApp))
    }

    static func load(_ json: String, environment: [String: String] = [:]) throws(ConfigurationError) -> LinkDomainConfiguration {
        try ConfigurationLoader(environment: environment, checkTLSFiles: CertificateStore.check).load(
            json: Data(json.utf8), source: "test.json", baseDirectory: nil)
    }

    /// The problems loading `json` reports (empty when it loads).
    static func problems(_ json: String, environment: [String: String] = [:]) -> [ConfigurationProblem] {
        do {
            _ = try load(json, environment: environment)
            return []
        } catch {
            return error.problems
        }
    }
}
