import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// One result of `linkdomain doctor`: what was checked, what was found, and how to fix it.
public struct DoctorFinding: Sendable, Equatable {
    public enum Severity: String, Sendable {
        case ok, warning, error
    }

    public var severity: Severity
    /// Which file or aspect: `apple-app-site-association`, `assetlinks.json`, `site`.
    public var subject: String
    public var message: String
    public var fix: String?

    public init(_ severity: Severity, _ subject: String, _ message: String, fix: String? = nil) {
        self.severity = severity
        self.subject = subject
        self.message = message
        self.fix = fix
    }
}

/// What a fetch returned, redirects not followed.
struct FetchedDocument: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]
    /// The body was cut off at the read limit.
    var truncated: Bool
}

/// Checks a deployed link domain the way Apple's CDN and Android's verifier read it: HTTPS with a
/// chain they trust, no redirect, 200, `application/json` exactly, within Apple's 128 KB, valid
/// JSON of the right shape, well-formed app IDs and fingerprints, the email-link paths covered,
/// and no HTML catch-all. Answers "the link opens the browser, not the app" in one command.
public struct DeploymentDoctor: Sendable {
    /// `https://links.example.com` (a path prefix is kept, for servers mounted under one).
    public let base: String
    /// A PEM file of extra trusted roots (a private CA); the system's roots otherwise.
    public let caFile: String?
    public var timeout: TimeAmount = .seconds(10)

    public static let applePath = "/.well-known/apple-app-site-association"
    public static let androidPath = "/.well-known/assetlinks.json"
    static let apple = "apple-app-site-association"
    static let android = "assetlinks.json"
    /// Apple's CDN refuses larger files; Android's limit is not documented, so the same bound is used.
    static let sizeLimit = AssociationFiles.appleSizeLimit

    public init(base: String, caFile: String? = nil) {
        var base = base
        while base.hasSuffix("/") { base.removeLast() }
        self.base = base
        self.caFile = caFile
    }

    public func run() async -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        guard let address = WebAddress(base) else {
            return [DoctorFinding(.error, "site", "\(base) is not an http(s) URL", fix: "Give the link domain's origin, such as https://links.example.com.")]
        }
        if address.scheme != "https" {
            findings.append(DoctorFinding(.error, "site", "\(base) is not HTTPS: iOS and Android fetch association files over HTTPS only",
                                          fix: "Serve the link domain over HTTPS (server.tls in LinkDomain, or a TLS-terminating proxy)."))
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile { tls.additionalTrustRoots = [.file(caFile)] }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow, timeout: .init(connect: timeout, read: timeout))
        configuration.decompression = .disabled
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        findings += await check(with: client)
        try? await client.shutdown()
        return findings
    }

    private func check(with client: HTTPClient) async -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        switch await fetch(Self.applePath, client) {
        case .success(let document): findings += Self.checkApple(document)
        case .failure(let problem): findings.append(problem.finding(Self.apple))
        }
        switch await fetch(Self.androidPath, client) {
        case .success(let document): findings += Self.checkAndroid(document)
        case .failure(let problem): findings.append(problem.finding(Self.android))
        }
        if case .success(let document) = await fetch("/.well-known/linkdomain-doctor-\(UInt64.random(in: 1...UInt64.max))", client) {
            findings += Self.checkCatchAll(document)
        }
        return findings
    }

    struct FetchProblem: Error {
        let message: String
        let fix: String

        func finding(_ subject: String) -> DoctorFinding { DoctorFinding(.error, subject, message, fix: fix) }
    }

    private func fetch(_ path: String, _ client: HTTPClient) async -> Result<FetchedDocument, FetchProblem> {
        var request = HTTPClientRequest(url: base + path)
        request.headers.add(name: "User-Agent", value: "linkdomain-doctor")
        request.headers.add(name: "Accept", value: "application/json")
        do {
            let response = try await client.execute(request, timeout: timeout)
            var body: [UInt8] = []
            var truncated = false
            for try await chunk in response.body {
                body += chunk.readableBytesView
                if body.count > Self.sizeLimit * 4 {
                    truncated = true
                    break
                }
            }
            return .success(FetchedDocument(status: Int(response.status.code), headers: response.headers, body: body, truncated: truncated))
        } catch let error as NIOSSLError {
            return .failure(FetchProblem(message: "\(base + path): the TLS handshake failed (\(error))",
                                         fix: "Serve a certificate for this host that chains to a public root, with the intermediates."))
        } catch let error as BoringSSLError {
            return .failure(FetchProblem(message: "\(base + path): the certificate is not trusted (\(error))",
                                         fix: "Serve the full chain (certificate, then intermediates) from a public CA; Apple's CDN trusts no private CA."))
        } catch {
            return .failure(FetchProblem(message: "\(base + path) could not be fetched (\(error))",
                                         fix: "Make the host reachable on port 443 from the internet, not only from inside your network."))
        }
    }

    // MARK: Checks on what was fetched

    /// Status, redirect, content type and size: what both verifiers require before they read a byte.
    static func checkTransport(_ document: FetchedDocument, subject: String, path: String) -> [DoctorFinding] {
        if (300..<400).contains(document.status) {
            let target = document.headers.first(name: "Location") ?? "elsewhere"
            return [DoctorFinding(.error, subject, "\(path) redirects (\(document.status)) to \(target); the verifiers do not follow redirects",
                                  fix: "Serve the file at exactly \(path) on this host with 200, with no redirect (not to www., not to a trailing slash).")]
        }
        guard document.status == 200 else {
            return [DoctorFinding(.error, subject, "\(path) answers \(document.status), not 200",
                                  fix: "Serve the file at \(path); with LinkDomain, configure the apps under apple.apps / android.apps.")]
        }
        var findings: [DoctorFinding] = [DoctorFinding(.ok, subject, "\(path) answers 200 with no redirect")]
        let contentType = document.headers.first(name: "Content-Type") ?? "(none)"
        if looksLikeHTML(document.body) || contentType.lowercased().hasPrefix("text/html") {
            findings.append(DoctorFinding(.error, subject, "\(path) is an HTML page (\(contentType)), not the JSON file",
                                          fix: "A catch-all route (a single-page app's index.html, a CMS) answers this path; serve the JSON file before it."))
            return findings
        }
        if contentType == "application/json" {
            findings.append(DoctorFinding(.ok, subject, "Content-Type is application/json"))
        } else {
            findings.append(DoctorFinding(.error, subject, "Content-Type is \(contentType), not application/json",
                                          fix: "Serve the file with exactly \"Content-Type: application/json\" (no charset, no other type)."))
        }
        if document.truncated || document.body.count > sizeLimit {
            findings.append(DoctorFinding(.error, subject, "the file is \(document.truncated ? "over \(sizeLimit * 4)" : String(document.body.count)) bytes; Apple reads at most \(sizeLimit)",
                                          fix: "Shorten the file: list paths as a few wildcard components rather than one per link."))
        } else {
            findings.append(DoctorFinding(.ok, subject, "\(document.body.count) bytes, within the \(sizeLimit)-byte limit"))
        }
        return findings
    }

    static func checkApple(_ document: FetchedDocument) -> [DoctorFinding] {
        var findings = checkTransport(document, subject: apple, path: applePath)
        guard !findings.contains(where: { $0.severity == .error && $0.message.contains("HTML") }), document.status == 200, !document.truncated else {
            return findings
        }
        var validator = AppleAssociationFileValidator(source: apple)
        validator.validate(Data(document.body), configuredApps: [])
        for problem in validator.problems {
            findings.append(DoctorFinding(.error, apple, "\(problem.key) \(problem.problem)", fix: "Expected \(problem.expected)."))
        }
        guard validator.problems.isEmpty, case .object(let root)? = try? JSONDecoder().decode(JSONValue.self, from: Data(document.body)) else {
            return findings
        }
        guard case .object(let applinks)? = root["applinks"], case .list(let details)? = applinks["details"], !details.isEmpty else {
            findings.append(DoctorFinding(.error, apple, "no applinks.details: no app opens this domain's links",
                                          fix: "Add {\"applinks\": {\"details\": [{\"appIDs\": [\"TEAMID.bundle.id\"], \"components\": [...]}]}}."))
            return findings
        }
        findings.append(DoctorFinding(.ok, apple, "valid JSON; every app ID is TEAMID.bundle.id"))
        for path in ["/__/auth/links", "/__/auth/action"] {
            let handled = details.contains { detail in
                guard case .object(let entry) = detail else { return false }
                return AppleAssociationPatterns.handles(path, entry: entry)
            }
            findings.append(handled
                ? DoctorFinding(.ok, apple, "\(path) opens the app")
                : DoctorFinding(.error, apple, "no app handles \(path): email links open the browser, not the app",
                                fix: "Add the component {\"/\": \"\(path)*\"} to the app's entry (LinkDomain's generated file has it)."))
        }
        return findings
    }

    static func checkAndroid(_ document: FetchedDocument) -> [DoctorFinding] {
        var findings = checkTransport(document, subject: android, path: androidPath)
        guard !findings.contains(where: { $0.severity == .error && $0.message.contains("HTML") }), document.status == 200, !document.truncated else {
            return findings
        }
        guard case .list(let statements)? = try? JSONDecoder().decode(JSONValue.self, from: Data(document.body)) else {
            findings.append(DoctorFinding(.error, android, "the file is not a JSON list of statements",
                                          fix: "Serve [{\"relation\": [\"delegate_permission/common.handle_all_urls\"], \"target\": {...}}]."))
            return findings
        }
        var apps = 0
        for (index, statement) in statements.enumerated() {
            guard case .object(let fields) = statement, case .list(let relations)? = fields["relation"],
                  relations.contains(.string("delegate_permission/common.handle_all_urls")),
                  case .object(let target)? = fields["target"], target["namespace"] == .string("android_app")
            else { continue }
            guard case .string(let package)? = target["package_name"], ConfigurationValidators.packageName(package) != nil else {
                findings.append(DoctorFinding(.error, android, "statement \(index) has no valid package_name",
                                              fix: "Set \"package_name\" to the app's application ID, such as com.example.app."))
                continue
            }
            guard case .list(let prints)? = target["sha256_cert_fingerprints"], !prints.isEmpty else {
                findings.append(DoctorFinding(.error, android, "\(package) lists no sha256_cert_fingerprints",
                                              fix: "Add the SHA-256 fingerprint of the signing key (Play Console → App signing)."))
                continue
            }
            for print in prints {
                guard case .string(let value) = print, value.utf8.count == 95, ConfigurationValidators.fingerprint(value) != nil else {
                    findings.append(DoctorFinding(.error, android, "\(package) has a malformed fingerprint \(print)",
                                                  fix: "Write fingerprints as 32 upper-case hex bytes joined by colons (AB:CD:...)."))
                    continue
                }
            }
            apps += 1
        }
        findings.append(apps > 0
            ? DoctorFinding(.ok, android, "\(apps) app(s) with well-formed package names and fingerprints")
            : DoctorFinding(.error, android, "no statement lets an app handle this domain's links",
                            fix: "Add a delegate_permission/common.handle_all_urls statement for each Android app."))
        return findings
    }

    static func checkCatchAll(_ document: FetchedDocument) -> [DoctorFinding] {
        guard document.status == 200, looksLikeHTML(document.body) else {
            return [DoctorFinding(.ok, "site", "unknown paths are not answered with an HTML page")]
        }
        return [DoctorFinding(.warning, "site", "an unknown path under /.well-known/ answers 200 with HTML: a catch-all route",
                              fix: "A catch-all can hide a missing association file behind a page; let unknown paths answer 404.")]
    }

    static func looksLikeHTML(_ body: [UInt8]) -> Bool {
        let start = body.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
        return start.first == UInt8(ascii: "<")
    }
}

/// Apple's rules for which paths an `applinks` entry handles: `components` in order, the first
/// whose `/` pattern matches decides (an `exclude` one says no); or legacy `paths`, where `NOT `
/// excludes. `*` matches any run of characters, `?` one.
enum AppleAssociationPatterns {
    static func handles(_ path: String, entry: [String: JSONValue]) -> Bool {
        if case .list(let components)? = entry["components"] {
            for component in components {
                guard case .object(let fields) = component, case .string(let pattern)? = fields["/"], matches(path, pattern) else { continue }
                return fields["exclude"] != .boolean(true)
            }
            return false
        }
        if case .list(let paths)? = entry["paths"] {
            for case .string(let pattern) in paths {
                if pattern.hasPrefix("NOT "), matches(path, String(pattern.dropFirst(4))) { return false }
                if matches(path, pattern) { return true }
            }
        }
        return false
    }

    static func matches(_ text: String, _ pattern: String) -> Bool {
        let text = Array(text.utf8), pattern = Array(pattern.utf8)
        var t = 0, p = 0, starP = -1, starT = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == UInt8(ascii: "?") || pattern[p] == text[t] {
                t += 1
                p += 1
            } else if p < pattern.count, pattern[p] == UInt8(ascii: "*") {
                starP = p
                starT = t
                p += 1
            } else if starP >= 0 {
                p = starP + 1
                starT += 1
                t = starT
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.count
    }
}
