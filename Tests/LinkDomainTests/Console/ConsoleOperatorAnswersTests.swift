import Foundation
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("What the console tells an operator: the relay's health, what the Apple file claims, short links in doctor")
struct ConsoleOperatorAnswersTests {
    static func mail(_ state: MailState, queuedAt: Int64, attempts: Int = 1, error: String? = nil, finishedAt: Int64? = nil) -> MailListing {
        MailListing(
            id: "m\(queuedAt)", recipient: "ada@example.com", kind: "sign-in", language: "en", state: state, queuedAt: queuedAt,
            attempts: attempts, lastError: error, finishedAt: finishedAt)
    }

    @Test("the relay: none configured, nothing yet, delivering, and not delivering since the first refused mail after the last sent")
    func relayHealth() {
        #expect(RelayHealth.of(relayConfigured: false, lastSent: nil, tried: []) == .notConfigured)
        #expect(RelayHealth.of(relayConfigured: true, lastSent: nil, tried: []) == .quiet)
        let sent = Self.mail(.sent, queuedAt: 100, finishedAt: 150)
        #expect(RelayHealth.of(relayConfigured: true, lastSent: sent, tried: []) == .delivering(lastSentAt: 150))
        // A mail refused before the last one went through says nothing about the relay now.
        let old = Self.mail(.failed, queuedAt: 90, attempts: 3, error: "550 no such user")
        #expect(RelayHealth.of(relayConfigured: true, lastSent: sent, tried: [old]) == .delivering(lastSentAt: 150))
        let first = Self.mail(.queued, queuedAt: 200, attempts: 2, error: "421 try later")
        let latest = Self.mail(.queued, queuedAt: 300, attempts: 1, error: "535 authentication failed")
        let waiting = Self.mail(.queued, queuedAt: 400, attempts: 0)
        #expect(
            RelayHealth.of(relayConfigured: true, lastSent: sent, tried: [latest, first, waiting, old])
                == .failing(since: 200, answer: "535 authentication failed"))
        #expect(RelayHealth.of(relayConfigured: true, lastSent: nil, tried: [waiting]) == .quiet)
    }

    @Test("the Apple file's claims are read from the file: components with exclusions and queries, paths, webcredentials, appclips")
    func appleClaims() {
        let file = #"""
            {"applinks": {"details": [
              {"appIDs": ["T.a", "T.b"], "components": [{"/": "/__/auth/links*"}, {"/": "/private/*", "exclude": true}, {"?": {"campaign": "?*"}}, {"/": "/*"}]},
              {"appID": "T.old", "paths": ["/legacy/*", "NOT /legacy/x"]}
            ]}, "webcredentials": {"apps": ["T.a", "T.web"]}, "appclips": {"apps": ["T.a.Clip"]}}
            """#
        let claims = AppleFileClaims.of(Array(file.utf8))
        #expect(
            claims == [
                AppleFileClaims(appID: "T.a", claims: ["/__/auth/links*", "NOT /private/*", "*?campaign=?*", "/*", "webcredentials"]),
                AppleFileClaims(appID: "T.b", claims: ["/__/auth/links*", "NOT /private/*", "*?campaign=?*", "/*"]),
                AppleFileClaims(appID: "T.old", claims: ["/legacy/*", "NOT /legacy/x"]),
                AppleFileClaims(appID: "T.web", claims: ["webcredentials"]),
                AppleFileClaims(appID: "T.a.Clip", claims: ["appclips"]),
            ])
        #expect(AppleFileClaims.of(Array("not json".utf8)).isEmpty)
    }

    @Test("doctor says whether short links open an app, and what to add when none does")
    func shortLinks() throws {
        func details(_ json: String) throws -> [JSONValue] {
            guard case .list(let list) = try JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)) else { return [] }
            return list
        }
        let emailOnly = DeploymentDoctor.checkShortLinks(try details(#"[{"appIDs": ["T.a"], "components": [{"/": "/__/auth/links*"}]}]"#))
        #expect(emailOnly.severity == .warning && emailOnly.fix?.contains("\"/*\"") == true)
        let everything = DeploymentDoctor.checkShortLinks(try details(#"[{"appIDs": ["T.a"], "components": [{"/": "/*"}]}]"#))
        #expect(everything.severity == .ok && everything.message.contains("T.a"))
        let excluded = DeploymentDoctor.checkShortLinks(
            try details(#"[{"appIDs": ["T.a"], "components": [{"/": "/Ab3dE9", "exclude": true}, {"/": "/*"}]}]"#))
        #expect(excluded.severity == .warning)
    }

    @Test("plain http and Apple's CDN not knowing the host are marked as what development expects; nothing else is")
    func expectedInDevelopment() async throws {
        let findings = try await DeploymentDoctorTests.findings("good")
        let expected = findings.filter(\.expectedInDevelopment)
        #expect(expected.contains { $0.subject == "site" && $0.message.contains("not HTTPS") })
        #expect(findings.filter { $0.severity == .error && !$0.expectedInDevelopment }.isEmpty, "\(findings)")
        #expect(!findings.contains { $0.subject == "apple-app-site-association" && $0.expectedInDevelopment })
    }
}
