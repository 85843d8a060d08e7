import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("linkdomain doctor against deliberately broken deployments")
struct DeploymentDoctorTests {
    static let apple = DeploymentDoctor.applePath
    static let android = DeploymentDoctor.androidPath

    /// One server, a broken deployment under each prefix.
    static func brokenSites() async throws -> some ApplicationProtocol {
        let files = try await Fixtures.services().files
        let json: HTTPFields = [.contentType: "application/json"]
        @Sendable func bytes(_ document: StaticJSONDocument) -> ResponseBody { .init(byteBuffer: ByteBuffer(bytes: document.bytes)) }
        let router = Router()
        router.get("/good\(apple)") { _, _ in Response(status: .ok, headers: json, body: bytes(files.apple)) }
        router.get("/good\(android)") { _, _ in Response(status: .ok, headers: json, body: bytes(files.android)) }
        for path in [apple, android] {
            router.get("/redirect\(path)") { _, _ in Response(status: .movedPermanently, headers: [.location: "https://www.example.com\(path)"]) }
            router.get("/wrongtype\(path)") { _, _ in
                Response(status: .ok, headers: [.contentType: "text/plain"], body: bytes(path == apple ? files.apple : files.android))
            }
            router.get("/missing\(path)") { _, _ in Response(status: .notFound) }
        }
        router.get("/html/**") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "<!doctype html><title>My shop</title><div id=app></div>")))
        }
        router.get("/oversize\(apple)") { _, _ in
            let padding = String(repeating: "x", count: 200 * 1024)
            return Response(status: .ok, headers: json, body: .init(byteBuffer: ByteBuffer(string: #"{"applinks":{"details":[]},"pad":""# + padding + #""}"#)))
        }
        router.get("/uncovered\(apple)") { _, _ in
            Response(
                status: .ok, headers: json,
                body: .init(
                    byteBuffer: ByteBuffer(
                        string: """
                            {"applinks":{"details":[{"appIDs":["A1B2C3D4E5.com.example.app"],"components":[{"/":"/__/auth/*","exclude":true},{"/":"*"}]}]}}
                            """)))
        }
        router.get("/badids\(apple)") { _, _ in
            Response(
                status: .ok, headers: json,
                body: .init(
                    byteBuffer: ByteBuffer(
                        string: """
                            {"applinks":{"details":[{"appIDs":["com.example.app"],"components":[{"/":"/__/auth/links*"}]}]}}
                            """)))
        }
        router.get("/badids\(android)") { _, _ in
            Response(
                status: .ok, headers: json,
                body: .init(
                    byteBuffer: ByteBuffer(
                        string: """
                            [{"relation":["delegate_permission/common.handle_all_urls"],"target":{"namespace":"android_app","package_name":"com.example.app","sha256_cert_fingerprints":["AB:CD"]}}]
                            """)))
        }
        // Stand-ins for Apple's CDN: its copy the same, older, or not there yet.
        router.get("/cdn-same/a/v1/127.0.0.1") { _, _ in Response(status: .ok, headers: json, body: bytes(files.apple)) }
        router.get("/cdn-old/a/v1/127.0.0.1") { _, _ in
            Response(
                status: .ok, headers: json,
                body: .init(
                    byteBuffer: ByteBuffer(
                        string: """
                            {"applinks":{"details":[{"appIDs":["OLDTEAM123.com.example.old"],"components":[{"/":"/__/auth/links*"}]}]}}
                            """)))
        }
        router.get("/cdn-none/a/v1/127.0.0.1") { _, _ in Response(status: .notFound) }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    static func findings(_ site: String) async throws -> [DoctorFinding] {
        try await brokenSites().test(.live) { client in
            await DeploymentDoctor(base: "http://127.0.0.1:\(client.port!)/\(site)").run()
        }
    }

    static func errors(_ findings: [DoctorFinding], _ subject: String) -> [String] {
        findings.filter { $0.severity == .error && $0.subject == subject }.map(\.message)
    }

    @Test("a good deployment over plain HTTP: the only error is that it is not HTTPS")
    func good() async throws {
        let findings = try await Self.findings("good")
        #expect(findings.filter { $0.severity == .error }.map(\.subject) == ["site"], "\(findings)")
        #expect(findings.contains { $0.message.contains("/__/auth/action opens the app") })
        #expect(findings.allSatisfy { $0.severity == .ok || $0.fix != nil })
    }

    @Test("Apple's CDN copy: the same is fine; an older one names what differs; none yet says so; a loopback host is not looked up")
    func appleCDN() async throws {
        func cdn(_ standIn: String?) async throws -> [DoctorFinding] {
            try await Self.brokenSites().test(.live) { client in
                var doctor = DeploymentDoctor(base: "http://127.0.0.1:\(client.port!)/good")
                if let standIn { doctor.appleCDN = "http://127.0.0.1:\(client.port!)/\(standIn)/a/v1" }
                return await doctor.run().filter { $0.subject == "Apple's CDN" }
            }
        }
        #expect(try await cdn("cdn-same").map(\.severity) == [.ok])
        let old = try await cdn("cdn-old")
        #expect(old.count == 1 && old[0].severity == .warning && old[0].fix?.contains("about a day") == true)
        #expect(old.first?.message.contains("lacks app IDs") == true && old.first?.message.contains("still names app IDs OLDTEAM123.com.example.old") == true)
        #expect(try await cdn("cdn-none").first?.message.contains("has no copy of this host's file yet (404)") == true)
        #expect(try await cdn(nil).isEmpty)
    }

    @Test("a redirect is an error for both files, naming where it goes")
    func redirect() async throws {
        let findings = try await Self.findings("redirect")
        #expect(Self.errors(findings, "apple-app-site-association").contains { $0.contains("redirects (301) to https://www.example.com") })
        #expect(Self.errors(findings, "assetlinks.json").contains { $0.contains("redirects (301)") })
    }

    @Test("a content type other than application/json is an error")
    func wrongContentType() async throws {
        let findings = try await Self.findings("wrongtype")
        #expect(Self.errors(findings, "apple-app-site-association") == ["Content-Type is text/plain, not application/json"])
        #expect(Self.errors(findings, "assetlinks.json") == ["Content-Type is text/plain, not application/json"])
    }

    @Test("an HTML page answering with 200 (a catch-all) is named as such")
    func htmlCatchAll() async throws {
        let findings = try await Self.findings("html")
        #expect(Self.errors(findings, "apple-app-site-association").contains { $0.contains("is an HTML page") })
        #expect(Self.errors(findings, "assetlinks.json").contains { $0.contains("is an HTML page") })
        #expect(findings.contains { $0.severity == .warning && $0.message.contains("catch-all") })
    }

    @Test("over Apple's 128 KB is an error")
    func oversize() async throws {
        let findings = try await Self.findings("oversize")
        #expect(Self.errors(findings, "apple-app-site-association").contains { $0.contains("Apple reads at most 131072") })
    }

    @Test("a missing file is an error with the status")
    func missing() async throws {
        let findings = try await Self.findings("missing")
        #expect(Self.errors(findings, "assetlinks.json") == ["\(Self.android) answers 404, not 200"])
    }

    @Test("email-link paths excluded by an earlier component are reported as opening the browser")
    func uncovered() async throws {
        let errors = Self.errors(try await Self.findings("uncovered"), "apple-app-site-association")
        #expect(errors.contains("no app handles /__/auth/links: email links open the browser, not the app"))
        #expect(errors.contains("no app handles /__/auth/action: email links open the browser, not the app"))
    }

    @Test("malformed app IDs and fingerprints are errors")
    func malformedIdentifiers() async throws {
        let findings = try await Self.findings("badids")
        #expect(Self.errors(findings, "apple-app-site-association").contains { $0.contains("malformed app ID") })
        #expect(Self.errors(findings, "assetlinks.json").contains { $0.contains("malformed fingerprint") })
    }

    @Test("Apple's pattern rules: first matching component decides, * and ?, NOT in legacy paths")
    func patterns() {
        #expect(AppleAssociationPatterns.matches("/__/auth/links", "/__/auth/links*"))
        #expect(AppleAssociationPatterns.matches("/__/auth/action", "/__/auth/act?on"))
        #expect(!AppleAssociationPatterns.matches("/__/auth/action", "/__/auth/links*"))
        #expect(AppleAssociationPatterns.matches("/anything", "*"))
        let excluded: [String: JSONValue] = ["components": .list([.object(["/": .string("/__/*"), "exclude": .boolean(true)]), .object(["/": .string("*")])])]
        #expect(!AppleAssociationPatterns.handles("/__/auth/links", entry: excluded))
        #expect(AppleAssociationPatterns.handles("/shop", entry: excluded))
        let legacy: [String: JSONValue] = ["paths": .list([.string("NOT /__/auth/action"), .string("*")])]
        #expect(!AppleAssociationPatterns.handles("/__/auth/action", entry: legacy))
        #expect(AppleAssociationPatterns.handles("/__/auth/links", entry: legacy))
    }
}
