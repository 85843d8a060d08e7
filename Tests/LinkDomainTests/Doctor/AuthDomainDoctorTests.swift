import NIOHTTP1
import Testing

@testable import LinkDomain
@testable import LinkDomainCore

@Suite("doctor on the sign-in helper, init.json and the credential files")
struct AuthDomainDoctorTests {
    static func document(_ status: Int, _ body: String = "", headers: [(String, String)] = [("Content-Type", "application/json")]) -> FetchedDocument {
        FetchedDocument(status: status, headers: HTTPHeaders(headers), body: Array(body.utf8), truncated: false)
    }

    @Test("a helper answering through this host reminds of the redirect URI; one whose origin fails is an error; none is not served")
    func helper() {
        let paths = DeploymentDoctor.helperPaths
        let served = DeploymentDoctor.checkHelper(paths.map { ($0, 200) }, base: "https://links.example.com")
        #expect(served.allSatisfy { $0.severity == .ok })
        #expect(served.contains { $0.message.contains("https://links.example.com/__/auth/handler as an authorized redirect URI") })
        let failing = DeploymentDoctor.checkHelper(paths.map { ($0, $0.hasSuffix(".js") ? 502 : 200) }, base: "https://links.example.com")
        #expect(failing.filter { $0.severity == .error }.count == 2)
        let off = DeploymentDoctor.checkHelper(paths.map { ($0, 404) }, base: "https://links.example.com")
        #expect(off.count == 1 && off[0].severity == .ok && off[0].message.contains("authHandler.origin"))
    }

    @Test("init.json must name this host")
    func firebaseInit() {
        #expect(
            DeploymentDoctor.checkFirebaseInit(Self.document(200, #"{"authDomain": "links.example.com"}"#), authority: "links.example.com")[0].severity == .ok)
        #expect(
            DeploymentDoctor.checkFirebaseInit(Self.document(200, #"{"authDomain": "p.firebaseapp.com"}"#), authority: "links.example.com")[0].severity
                == .warning)
        #expect(DeploymentDoctor.checkFirebaseInit(Self.document(200, "<html>"), authority: "links.example.com")[0].severity == .error)
    }

    @Test("the credential files hold https values, in JSON; change-password redirects to an https page")
    func credentialFiles() {
        let webauthn = DeploymentDoctor.webauthnPath, endpoints = DeploymentDoctor.passkeyEndpointsPath
        #expect(DeploymentDoctor.checkCredentialDocument(Self.document(200, #"{"origins": ["https://example.com"]}"#), path: webauthn)[0].severity == .ok)
        #expect(
            DeploymentDoctor.checkCredentialDocument(Self.document(200, #"{"origins": ["https://example.com/login"]}"#), path: webauthn)[0].severity
                == .error)
        #expect(DeploymentDoctor.checkCredentialDocument(Self.document(200, #"{"origins": "x"}"#), path: webauthn)[0].severity == .error)
        #expect(
            DeploymentDoctor.checkCredentialDocument(Self.document(200, #"{"enroll": "http://example.com/new"}"#), path: endpoints)[0].severity == .error)
        #expect(
            DeploymentDoctor.checkCredentialDocument(
                Self.document(200, #"{"origins": []}"#, headers: [("Content-Type", "text/html")]), path: webauthn)[0].severity == .error)
        #expect(DeploymentDoctor.checkCredentialDocument(Self.document(404), path: endpoints)[0].severity == .ok)
        let redirect = Self.document(302, headers: [("Location", "https://example.com/account/password")])
        #expect(DeploymentDoctor.checkChangePassword(redirect)[0].severity == .ok)
        #expect(DeploymentDoctor.checkChangePassword(Self.document(200, "page"))[0].severity == .warning)
    }
}
