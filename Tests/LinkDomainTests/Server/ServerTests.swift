import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("The HTTP server, live on loopback")
struct ServerTests {
    static let associationHeaders: [HTTPField.Name] = [.contentType, .cacheControl, .eTag, .contentLength]

    static func application(logger: Logger = Logger(label: "test")) async throws -> some ApplicationProtocol {
        LinkDomainApplication.build(try await Fixtures.services(), logger: logger)
    }

    @Test(
        "association files: 200, exact headers and exact JSON",
        arguments: [
            ("/.well-known/apple-app-site-association", AssociationFilesTests.expectedApple),
            ("/apple-app-site-association", AssociationFilesTests.expectedApple),
            ("/.well-known/assetlinks.json", AssociationFilesTests.expectedAndroid),
        ]
    )
    func associationFile(path: String, expected: String) async throws {
        try await Self.application().test(.live) { client in
            try await client.execute(uri: path, method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json")
                #expect(response.headers[.cacheControl] == "public, max-age=3600")
                #expect(response.headers[.contentLength] == String(expected.utf8.count))
                #expect(response.headers[.eTag] == StaticJSONDocument(bytes: Array(expected.utf8)).etag)
                #expect(response.headers[.xContentTypeOptions] == "nosniff")
                #expect(response.headers[.location] == nil)
                #expect(String(buffer: response.body) == expected)
            }
        }
    }

    @Test("If-None-Match with the current tag answers 304 with no body; another tag gets the file")
    func conditionalGet() async throws {
        try await Self.application().test(.live) { client in
            let etag = try await client.execute(uri: "/.well-known/assetlinks.json", method: .get) { $0.headers[.eTag] }
            let tag = try #require(etag)
            for condition in [tag, "W/\(tag)", "\"other\", \(tag)", "*"] {
                try await client.execute(uri: "/.well-known/assetlinks.json", method: .get, headers: [.ifNoneMatch: condition]) { response in
                    #expect(response.status == .notModified)
                    #expect(response.body.readableBytes == 0)
                    #expect(response.headers[.eTag] == tag)
                    #expect(response.headers[.cacheControl] == "public, max-age=3600")
                }
            }
            try await client.execute(uri: "/.well-known/assetlinks.json", method: .get, headers: [.ifNoneMatch: "\"stale\""]) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == AssociationFilesTests.expectedAndroid)
            }
        }
    }

    @Test("HEAD answers the GET headers with no body")
    func head() async throws {
        try await Self.application().test(.live) { client in
            for path in ["/.well-known/apple-app-site-association", "/.well-known/assetlinks.json"] {
                let get = try await client.execute(uri: path, method: .get) { $0 }
                try await client.execute(uri: path, method: .head) { response in
                    #expect(response.status == .ok)
                    #expect(response.body.readableBytes == 0)
                    for name in Self.associationHeaders {
                        #expect(response.headers[name] == get.headers[name], "\(name)")
                    }
                }
            }
        }
    }

    @Test(
        "unknown machine paths get a small plain 404, never another route's content",
        arguments: [
            "/.well-known/assetlinks.json/extra", "/.well-known/assetlinks", "/.well-known/", "/v1/nope", "/__/static/nope.css",
            "/identitytoolkit.googleapis.com/v9/nope",
        ]
    )
    func notFound(path: String) async throws {
        try await Self.application().test(.live) { client in
            try await client.execute(uri: path, method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.headers[.contentType] == "text/plain; charset=utf-8")
                #expect(String(buffer: response.body) == "Not Found: there is nothing at this address.\n")
            }
        }
    }

    @Test("unknown page paths get a branded 404 page in the visitor's language, with the security headers", arguments: ["/nope", "/__/auth/unknown", "/a/b/c"])
    func brandedNotFound(path: String) async throws {
        try await Self.application().test(.live) { client in
            try await client.execute(uri: path, method: .get, headers: [.acceptLanguage: "it-IT, en;q=0.5"]) { response in
                let html = String(buffer: response.body)
                #expect(response.status == .notFound)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                #expect(response.headers[.cacheControl] == "no-store" && response.headers[.contentSecurityPolicy] != nil)
                #expect(html.contains("<html lang=\"it\" dir=\"ltr\">") && html.contains("Pagina non trovata"))
            }
        }
    }

    @Test("other methods on the association files are refused without a body")
    func otherMethods() async throws {
        try await Self.application().test(.live) { client in
            try await client.execute(uri: "/.well-known/assetlinks.json", method: .post, body: ByteBuffer(string: "{}")) { response in
                #expect(response.status == .notFound || response.status == .methodNotAllowed)
                #expect(response.headers[.contentType] == "text/plain; charset=utf-8")
            }
        }
    }

    @Test("health and readiness")
    func health() async throws {
        try await Self.application().test(.live) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "ok\n")
            }
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "ready\n")
            }
        }
    }

    struct FailingCheck: ReadinessCheck {
        var name: String { "backend" }
        func isReady() async -> Bool { false }
    }

    @Test("readiness fails with the failing check's name")
    func notReady() async throws {
        let router = LinkDomainApplication.router(
            try await Fixtures.services(), extraReadinessChecks: [FailingCheck()],
            logger: Logger(label: "test"))
        try await Application(router: router).test(.router) { client in
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(String(buffer: response.body) == "not ready: backend\n")
            }
        }
    }

    @Test("one log line per request, with method, path, status and duration, never the query string")
    func requestLog() async throws {
        let recorder = LogRecorder()
        let logger = Logger(label: "test") { _ in recorder }
        try await Self.application(logger: logger).test(.live) { client in
            _ = try await client.execute(uri: "/healthz?oobCode=SECRETCODE&apiKey=KEY", method: .get) { $0 }
            _ = try await client.execute(uri: "/missing?oobCode=SECRETCODE", method: .get) { $0 }
        }
        let requests = recorder.entries.filter { $0.message == "request" }
        #expect(requests.count == 2)
        #expect(requests.map { $0.metadata["path"] } == ["/healthz", "/missing"])
        #expect(requests.map { $0.metadata["status"] } == ["200", "404"])
        #expect(requests.map { $0.metadata["method"] } == ["GET", "GET"])
        #expect(requests.allSatisfy { $0.metadata["duration_ms"] != nil })
        let everything = recorder.entries.map { "\($0.message) \($0.metadata)" }.joined()
        #expect(!everything.contains("SECRETCODE"))
        #expect(!everything.contains("KEY"))
    }
}

/// Keeps every log entry in memory, for assertions on what is logged.
final class LogRecorder: LogHandler, Sendable {
    struct Entry: Sendable {
        var message: String
        var metadata: [String: String]
    }

    private let storage = Mutex<[Entry]>([])
    var entries: [Entry] { storage.withLock { $0 } }

    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }
    var logLevel: Logger.Level {
        get { .trace }
        set {}
    }
    subscript(metadataKey _: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }

    func log(event: LogEvent) {
        let metadata = (event.metadata ?? [:]).mapValues { "\($0)" }
        storage.withLock { $0.append(Entry(message: "\(event.message)", metadata: metadata)) }
    }
}
