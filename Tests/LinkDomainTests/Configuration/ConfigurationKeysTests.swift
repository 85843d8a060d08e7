import Foundation
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("The configuration keys, described once")
struct ConfigurationKeysTests {
    @Test("docs/configuration.md's configuration table is the one the key table generates")
    func documentedTable() throws {
        let document = try String(
            contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs").appendingPathComponent("configuration.md"),
            encoding: .utf8)
        let table = ConfigurationKeys.documentationTable
        #expect(
            document.contains(table + "\n"),
            "docs/configuration.md's configuration table differs from ConfigurationKeys: replace it with the output of `linkdomain keys`")
        // Every key row in docs/configuration.md comes from the table (no stale row left beside it).
        let rows = document.split(separator: "\n").filter { $0.hasPrefix("| `") && $0.contains("| `LINKDOMAIN_") }
        #expect(rows.count == ConfigurationKeys.all.count)
    }

    @Test("the schema, the environment names and the loader come from the same keys")
    func derived() throws {
        #expect(ConfigurationKeys.serverPort.environmentVariable == "LINKDOMAIN_SERVER_PORT")
        #expect(ConfigurationKeys.appleTeamID.environmentVariable == "LINKDOMAIN_APPLE_APPS_i_TEAM_ID")
        #expect(ConfigurationKeys.appleTeamID.path(index: 2) == ["apple", "apps", "2", "teamID"])
        guard case .object(let server)? = ConfigurationSchema.root["server"], case .object(let tls)? = server["tls"],
            case .objectList(let app)? = ConfigurationSchema.root["apple"].flatMap({ node -> ConfigurationNode? in
                if case .object(let apple) = node { apple["apps"] } else { nil }
            })
        else {
            Issue.record("the schema lost its nesting")
            return
        }
        #expect(tls.keys.sorted() == ["acme", "certificatePath", "privateKeyPath"])
        #expect(app.keys.count == 6)
        // Each key is read: a value of the wrong type is reported under its own name.
        for key in ConfigurationKeys.all where key.list == nil {
            let wrong: String =
                switch key.type {
                case .integer, .boolean: "\"x\""
                default: "12"
                }
            let json = Self.json(path: key.path(), value: wrong)
            #expect(throws: ConfigurationError.self, "\(key.name)") { try Fixtures.load(json) }
        }
    }

    @Test("secret keys never show their values in problems")
    func secrets() throws {
        let secrets = ConfigurationKeys.all.filter(\.isSecret).map(\.name)
        #expect(
            Set(secrets) == [
                "formSecret", "storage.postgresURL", "backend.adminKeys", "shortLinks.apiKeys", "mail.smtpURL", "console.users[i].passwordHash",
                "server.tls.acme.externalAccountMacKey",
            ])
        let json =
            #"{"formSecret": "hunter2", "storage": {"postgresURL": "mysql://root:hunter2@db"}, "backend": {"adminKeys": ["hunter2"]}, "#
            + #""shortLinks": {"apiKeys": ["hunter2"]}, "mail": {"smtpURL": "ftp://user:hunter2@relay"}}"#
        do {
            _ = try Fixtures.load(json)
            Issue.record("loaded")
        } catch {
            #expect(error.problems.count == 5)
            #expect(!error.description.contains("hunter2"))
        }
    }

    static func json(path: [String], value: String) -> String {
        path.reversed().reduce(value) { inner, component in "{\"\(component)\": \(inner)}" }
    }
}
