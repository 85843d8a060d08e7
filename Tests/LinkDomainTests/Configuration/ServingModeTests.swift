import Foundation
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Development and deployment")
struct ServingModeTests {
    static let adminKey = String(repeating: "k", count: 32)

    @Test(
        "development only on a loopback bind with an http loopback base URL",
        arguments: [
            (#"{"server": {"host": "127.0.0.1"}}"#, ServingMode.development),
            (#"{"server": {"host": "::1"}, "publicBaseURL": "http://localhost:8080"}"#, .development),
            (
                #"{"server": {"host": "0.0.0.0"}, "publicBaseURL": "http://localhost:8080", "backend": {"apiKey": "k", "adminKeys": ["\#(adminKey)"]}}"#,
                .deployment
            ),
            (#"{"publicBaseURL": "https://links.example.com", "backend": {"apiKeys": ["k"], "adminKeys": ["\#(adminKey)"]}}"#, .deployment),
            (#"{"server": {"host": "0.0.0.0", "forceDevelopmentMode": true}}"#, .development),
        ])
    func mode(json: String, expected: ServingMode) throws {
        #expect(try Fixtures.load(json).mode == expected)
    }

    @Test("forcing development is visible in the configuration and the start-up summary")
    func forced() throws {
        let configuration = try Fixtures.load(#"{"server": {"host": "0.0.0.0", "forceDevelopmentMode": true}}"#)
        #expect(configuration.isDevelopmentForced)
        #expect(StartupSummary.text(configuration: configuration, listeningPort: 8080).contains("DEVELOPMENT, FORCED"))
        #expect(try !Fixtures.load("{}").isDevelopmentForced)
    }

    @Test("a deployment of the embedded backend without keys names both, in every source")
    func missingKeys() {
        let problems = Fixtures.problems(#"{"publicBaseURL": "https://links.example.com"}"#)
        #expect(problems.map(\.key) == ["backend.apiKeys", "backend.adminKeys"])
        #expect(problems.allSatisfy { $0.problem.hasPrefix("is missing: this is a deployment") })
        // The keys from the environment are enough; other backends need none.
        #expect(
            Fixtures.problems(
                #"{"publicBaseURL": "https://links.example.com"}"#,
                environment: ["LINKDOMAIN_BACKEND_API_KEYS": "a,b", "LINKDOMAIN_BACKEND_ADMIN_KEYS": Self.adminKey]
            ).isEmpty)
        #expect(Fixtures.problems(#"{"publicBaseURL": "https://links.example.com", "backend": {"kind": "identityToolkit"}}"#).isEmpty)
    }

    @Test("admin keys are 32 characters or more, and never printed")
    func shortAdminKey() {
        let problems = Fixtures.problems(#"{"backend": {"adminKeys": ["tooshort-secret"]}}"#)
        #expect(problems.count == 1)
        #expect(!problems.description.contains("tooshort-secret"))
    }

    @Test("client keys: backend.apiKey and backend.apiKeys; links carry the first")
    func clientKeys() throws {
        let both = try Fixtures.load(#"{"backend": {"apiKey": "one", "apiKeys": ["two", "three"]}}"#)
        #expect(both.backend.clientAPIKeys == ["one", "two", "three"] && both.backend.apiKey == "one")
        let listed = try Fixtures.load(#"{"backend": {"apiKeys": ["two"]}}"#)
        #expect(listed.backend.apiKey == "two")
        #expect(try Fixtures.load("{}").backend.apiKey == "demo-api-key")
    }

    @Test("publicDirectory must hold every page asset")
    func publicDirectory() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("linkdomain-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let problems = Fixtures.problems(#"{"publicDirectory": "\#(empty.path)"}"#)
        #expect(problems.map(\.key) == ["publicDirectory"])
        #expect(problems.first?.problem.contains("lacks templates/confirm-action.mustache") == true)
        #expect(Fixtures.problems(#"{"publicDirectory": "\#(Fixtures.repositoryRoot.appendingPathComponent("Public").path)"}"#).isEmpty)
    }

    @Test("the built-in pages are exactly the repository's Public/")
    func builtInMatchesRepository() throws {
        let public_ = Fixtures.repositoryRoot.appendingPathComponent("Public")
        let onDisk = try FileManager.default.subpathsOfDirectory(atPath: public_.path).filter { path in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: public_.appendingPathComponent(path).path, isDirectory: &isDirectory) && !isDirectory.boolValue
        }
        var same = Set(onDisk) == Set(PageAssets.builtInFiles.keys)
        for (path, text) in PageAssets.builtInFiles {
            same = same && (try? String(contentsOf: public_.appendingPathComponent(path), encoding: .utf8)) == text
        }
        #expect(same, "Public/ changed since Sources/LinkDomain/Pages/BuiltInPageAssets.swift was made: run scripts/embed-pages")
        _ = try PageAssets.builtIn()
    }
}

@Suite("Configuration warnings")
struct ConfigurationWarningsTests {
    @Test("a bundle ID that starts with a team ID is pointed out; a plain one is not")
    func teamPrefix() throws {
        let pasted = try Fixtures.load(
            #"{"pivotBaseURL": "http://localhost:8080", "apple": {"apps": [{"teamID": "ABCDE12345", "bundleID": "ABCDE12345.com.example.app"}]}}"#)
        let warnings = ConfigurationWarnings.of(pasted)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("\"com.example.app\"") == true)
        let plain = try Fixtures.load(
            #"{"pivotBaseURL": "http://localhost:8080", "apple": {"apps": [{"teamID": "ABCDE12345", "bundleID": "com.example.app"}]}}"#)
        #expect(ConfigurationWarnings.of(plain).isEmpty)
    }

    @Test("an iPhone app without a pivot host is told why its pages cannot offer \"Open in the app\", and what to set")
    func pivotHost() throws {
        let configuration = try Fixtures.load(#"{"apple": {"apps": [{"teamID": "ABCDE12345", "bundleID": "com.example.app"}]}}"#)
        let warning = try #require(ConfigurationWarnings.of(configuration).first { $0.hasPrefix("pivotBaseURL is not set") })
        #expect(warning.contains("set pivotBaseURL"))
        #expect(ConfigurationWarnings.of(try Fixtures.load("{}")).allSatisfy { !$0.hasPrefix("pivotBaseURL") })
    }

    @Test("a deployment without branding.homeURL is told that finished pages have no way back to its website")
    func homeURL() throws {
        var deployed = LinkDomainConfiguration(publicBaseURL: "https://links.example.com")
        #expect(ConfigurationWarnings.of(deployed).contains { $0.hasPrefix("branding.homeURL is not set") })
        deployed.branding.homeURL = "https://example.com/"
        #expect(ConfigurationWarnings.of(deployed).isEmpty)
    }
}

@Suite("Secrets in configuration problems")
struct SecretProblemsTests {
    @Test("an invalid PostgreSQL URL is reported without its password")
    func postgresURL() {
        let problems = Fixtures.problems(#"{"storage": {"postgresURL": "mysql://admin:hunter2@db.example.com/x"}}"#)
        #expect(problems.map(\.key) == ["storage.postgresURL"])
        #expect(!problems.description.contains("hunter2"))
    }
}
