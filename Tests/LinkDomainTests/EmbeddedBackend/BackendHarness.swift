import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkDomain
@testable import LinkDomainCore
import LinkDomainExercises
@testable import LinkDomainStorage
import Logging
import NIOFoundationEssentialsCompat
import Testing

/// Runs the real server on loopback with the embedded backend on a fresh SQLite file and a clock
/// the test moves.
struct BackendHarness {
    static let projectID = "demo-linkdomain"

    let databasePath: String
    let clock: ManualWallClock
    let configuration: LinkDomainConfiguration

    init(
        emailEnumerationProtection: Bool = true, databasePath: String? = nil, clock: ManualWallClock? = nil,
        adjust: (inout LinkDomainConfiguration) -> Void = { _ in }
    ) {
        self.databasePath =
            databasePath
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("linkdomain-test-\(UUID().uuidString)/auth.sqlite").path
        self.clock = clock ?? ManualWallClock(milliseconds: 1_800_000_000_000)
        var configuration = LinkDomainConfiguration(publicBaseURL: "https://links.example.com")
        configuration.server.port = 0
        configuration.apple.apps = [AppleApp(teamID: "ABCDE12345", bundleID: "com.example.app", appStoreID: "1234567890")]
        configuration.android.apps = [AndroidApp(packageName: "com.example.app", fingerprints: [Fixtures.fingerprintA])]
        configuration.authorizedDomains = ["app.example.com", "links.example.com"]
        configuration.backend.emailEnumerationProtection = emailEnumerationProtection
        configuration.storage = .sqlite(path: self.databasePath)
        configuration.pivotBaseURL = "https://open.example.com"
        // The emulator's contract (`Bearer owner`, any key), though the links name a public host.
        configuration.server.forceDevelopmentMode = true
        configuration.passwordHashRounds = 1 << 10  // a cheaper scrypt: the tests sign up hundreds of accounts
        configuration.limits.requestsPerMinute = 1_000_000  // every test request comes from 127.0.0.1
        configuration.limits.burst = 1_000_000
        adjust(&configuration)
        self.configuration = configuration
    }

    func run<Value>(setup: TestingSetup = .live, _ test: @Sendable (BackendClient) async throws -> Value) async throws -> Value {
        let services = try await LinkDomainServices.make(configuration: configuration, clock: clock, logger: Logger(label: "test"))
        let app = LinkDomainApplication.build(services, logger: Logger(label: "test"))
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

    func post(_ path: String, _ body: [String: Any], headers: HTTPFields = [:], method: HTTPRequest.Method = .post) async throws -> Answer {
        var headers = headers
        headers[.contentType] = "application/json"
        let data = try JSONSerialization.data(withJSONObject: body)
        return try await client.execute(uri: path, method: method, headers: headers, body: ByteBuffer(data: data)) { response in
            Self.answer(response)
        }
    }

    func get(_ path: String) async throws -> Answer {
        try await client.execute(uri: path, method: .get) { Self.answer($0) }
    }

    /// A page as a browser on `agent` gets it.
    func page(_ path: String, agent: String = UserAgents.desktop, method: HTTPRequest.Method = .get, headers: HTTPFields = [:]) async throws -> Page {
        var headers = headers
        headers[.userAgent] = agent
        return try await client.execute(uri: path, method: method, headers: headers) { Page($0) }
    }

    /// Submits a page's form as a browser would: its hidden fields and `extra`, from `site`
    /// (`Sec-Fetch-Site`); a redirect to the result page is followed, as a browser does.
    func submit(_ page: Page, _ extra: [String: String] = [:], site: String = "same-origin") async throws -> Page {
        try await followed(try await post(page, extra, site: site))
    }

    /// The form's POST alone, its answer not followed.
    func post(_ page: Page, _ extra: [String: String] = [:], site: String = "same-origin") async throws -> Page {
        var fields = page.hiddenFields
        fields.merge(extra) { $1 }
        return try await postForm("/__/auth/action", fields, site: site)
    }

    /// A form's fields posted to `path` as a browser posts them, the answer not followed.
    func postForm(_ path: String, _ fields: [String: String], site: String = "same-origin") async throws -> Page {
        let body = fields.map { "\(ActionLinkEncoder.percentEncode($0))=\(ActionLinkEncoder.percentEncode($1))" }.joined(separator: "&")
        let headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded", .userAgent: UserAgents.desktop, .secFetchSite: site]
        return try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: body)) { Page($0) }
    }

    /// The page a 303 leads to, or the page itself.
    func followed(_ page: Page) async throws -> Page {
        guard page.status == .seeOther, let location = page.headers[.location] else { return page }
        return try await self.page(location)
    }

    static func answer(_ response: TestResponse) -> Answer {
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

/// A rendered page: status, headers, HTML, and what a browser would read from it.
struct Page: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var html: String

    init(_ response: TestResponse) {
        status = response.status
        headers = response.headers
        html = String(buffer: response.body)
    }

    var title: String? {
        guard let start = html.range(of: "<h1 id=\"page-title\">"), let end = html[start.upperBound...].range(of: "</h1>") else { return nil }
        return String(html[start.upperBound..<end.lowerBound])
    }

    /// The hidden inputs of the page's form, unescaped.
    var hiddenFields: [String: String] {
        var fields: [String: String] = [:]
        var rest = Substring(html)
        while let input = rest.range(of: "<input type=\"hidden\" name=\"") {
            let afterName = rest[input.upperBound...]
            guard let nameEnd = afterName.firstIndex(of: "\""), let valueStart = afterName.range(of: "value=\"") else { break }
            let valueRest = afterName[valueStart.upperBound...]
            guard let valueEnd = valueRest.firstIndex(of: "\"") else { break }
            fields[String(afterName[..<nameEnd])] = Self.unescape(String(valueRest[..<valueEnd]))
            rest = valueRest[valueEnd...]
        }
        return fields
    }

    /// The `href` of the first link with class `cls`.
    func href(_ cls: String) -> String? {
        guard let anchor = html.range(of: "class=\"\(cls)\" href=\"") else { return nil }
        let rest = html[anchor.upperBound...]
        return rest.firstIndex(of: "\"").map { Self.unescape(String(rest[..<$0])) }
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&#x2F;", with: "/").replacingOccurrences(of: "&#x3D;", with: "=")
            .replacingOccurrences(of: "&#x60;", with: "`").replacingOccurrences(of: "&amp;", with: "&")
    }
}

enum UserAgents {
    static let desktop = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"
    static let iPhone =
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
    static let android = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"
    static let scanner = "Mozilla/5.0 (compatible; Barracuda Sentinel; +https://barracuda.com)"
}
