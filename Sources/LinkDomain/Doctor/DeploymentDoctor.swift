import AsyncHTTPClient
import Foundation
import LinkDomainCore
import LinkDomainStorage
import NIOCore
import NIOHTTP1
import NIOSSL

/// One result of `linkdomain doctor`: what was checked, what was found, and how to fix it.
public struct DoctorFinding: Sendable, Equatable {
    /// How much a finding matters: whether iOS or Android would still verify the domain.
    public enum Severity: String, Sendable {
        case ok, warning, error
    }

    public var severity: Severity
    /// Which file or aspect: `apple-app-site-association`, `assetlinks.json`, `site`.
    public var subject: String
    public var message: String
    public var fix: String?
    /// A finding every server on a developer's laptop gets (plain http, Apple's CDN unable to
    /// reach it): the console marks it as expected there.
    public var expectedInDevelopment = false

    public init(_ severity: Severity, _ subject: String, _ message: String, fix: String? = nil, expectedInDevelopment: Bool = false) {
        self.severity = severity
        self.subject = subject
        self.message = message
        self.fix = fix
        self.expectedInDevelopment = expectedInDevelopment
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
    /// Where Apple's CDN serves its copy of a host's association file (`<appleCDN>/<host>`): iOS
    /// reads that copy, not the host's, so a changed file reaches phones only once Apple fetches it again.
    public var appleCDN = Self.appleCDNBase
    public static let appleCDNBase = "https://app-site-association.cdn-apple.com/a/v1"

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
            findings.append(
                DoctorFinding(
                    .error, "site", "\(base) is not HTTPS: iOS and Android fetch association files over HTTPS only",
                    fix: "Serve the link domain over HTTPS (server.tls or server.tls.acme in LinkDomain, or a TLS-terminating proxy).",
                    expectedInDevelopment: true))
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
        case .success(let document):
            findings += Self.checkApple(document)
            if let cdn = await appleCopy(client) { findings.append(Self.compareAppleCopy(cdn, with: document)) }
        case .failure(let problem):
            findings.append(problem.finding(Self.apple))
            // A host that cannot be reached at all says so once, not after every fetch's timeout.
            if problem.unreachable { return findings }
        }
        switch await fetch(Self.androidPath, client) {
        case .success(let document): findings += Self.checkAndroid(document)
        case .failure(let problem): findings.append(problem.finding(Self.android))
        }
        if case .success(let document) = await fetch("/.well-known/linkdomain-doctor-\(UInt64.random(in: 1...UInt64.max))", client) {
            findings += Self.checkCatchAll(document)
        }
        findings += await checkAuthDomain(with: client)
        if case .success(let document) = await fetch(RoutePaths.readiness, client) { findings += Self.checkCertificate(readiness: document) }
        return findings
    }

    /// The certificate as the server itself reports it on `/readyz`: not issued yet (an error),
    /// expiring within a week or not renewing for a day (warnings). Nothing when it says nothing.
    static func checkCertificate(readiness document: FetchedDocument) -> [DoctorFinding] {
        let text = String(decoding: document.body.prefix(16384), as: UTF8.self)
        var findings: [DoctorFinding] = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("warning: certificate: ") {
                findings.append(
                    DoctorFinding(
                        .warning, "certificate", String(line.dropFirst("warning: certificate: ".count)),
                        fix:
                            "Read the server's log for the CA's answer (ACME: the certificate was not issued); check DNS points here and the challenge port is reachable."
                    ))
            } else if line.hasPrefix("not ready: "), let range = line.range(of: "certificate: ") {
                let reason = line[range.upperBound...].split(separator: ",").first.map(String.init) ?? ""
                findings.append(
                    DoctorFinding(
                        .error, "certificate", reason, fix: "Wait for the first order, or read the server's log for the CA's answer."))
            }
        }
        return findings
    }

    /// The sign-in helper, `init.json` and the credential files (``checkHelper(_:base:)`` and the rest).
    private func checkAuthDomain(with client: HTTPClient) async -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        var helper: [(path: String, status: Int)] = []
        for path in Self.helperPaths {
            switch await fetch(path, client) {
            case .success(let document): helper.append((path, document.status))
            case .failure(let problem): return [problem.finding("sign-in helper")]
            }
        }
        findings += Self.checkHelper(helper, base: base)
        let authority = CredentialFiles.authDomain(publicBaseURL: base)
        if case .success(let document) = await fetch(Self.firebaseInitPath, client) { findings += Self.checkFirebaseInit(document, authority: authority) }
        for path in [Self.webauthnPath, Self.passkeyEndpointsPath] {
            if case .success(let document) = await fetch(path, client) { findings += Self.checkCredentialDocument(document, path: path) }
        }
        if case .success(let document) = await fetch(Self.changePasswordPath, client) { findings += Self.checkChangePassword(document) }
        return findings
    }

    struct FetchProblem: Error {
        let message: String
        let fix: String
        /// No connection was made (a name that does not resolve, a refused or silent port).
        var unreachable = false

        func finding(_ subject: String) -> DoctorFinding { DoctorFinding(.error, subject, message, fix: fix) }
    }

    /// Apple's copy of this host's file, or what stopped it being read; nil for a loopback host,
    /// which Apple's CDN cannot reach (unless a stand-in CDN was given, as tests do).
    private func appleCopy(_ client: HTTPClient) async -> Result<FetchedDocument, FetchProblem>? {
        guard let address = WebAddress(base), appleCDN != Self.appleCDNBase || !address.isLoopback else { return nil }
        return await fetch(url: appleCDN + "/" + address.host, client)
    }

    private func fetch(_ path: String, _ client: HTTPClient) async -> Result<FetchedDocument, FetchProblem> {
        await fetch(url: base + path, client)
    }

    private func fetch(url: String, _ client: HTTPClient) async -> Result<FetchedDocument, FetchProblem> {
        var request = HTTPClientRequest(url: url)
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
            return .failure(
                FetchProblem(
                    message: "\(url): the TLS handshake failed (\(error))",
                    fix: "Serve a certificate for this host that chains to a public root, with the intermediates."))
        } catch let error as BoringSSLError {
            return .failure(
                FetchProblem(
                    message: "\(url): the certificate is not trusted (\(error))",
                    fix: "Serve the full chain (certificate, then intermediates) from a public CA; Apple's CDN trusts no private CA."))
        } catch {
            return .failure(
                FetchProblem(
                    message: "\(url) could not be fetched (\(error))",
                    fix: "Make the host reachable on port 443 from the internet, not only from inside your network.",
                    unreachable: !(error is HTTPClientError) || [.connectTimeout, .deadlineExceeded].contains(error as? HTTPClientError)))
        }
    }
}
