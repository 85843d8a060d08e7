import Foundation
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("The auth domain's keys: the helper's origin, init.json, passkeys, the admin listener")
struct AuthDomainConfigurationTests {
    @Test("the helper comes from the project's firebaseapp.com with Identity Toolkit, and is off with the embedded backend")
    func helperOriginDefaults() throws {
        #expect(try Fixtures.load("{}").authDomain.helperOrigin == nil)
        let google = try Fixtures.load(#"{"backend": {"kind": "identityToolkit", "projectID": "my-project"}}"#)
        #expect(google.authDomain.helperOrigin == "https://my-project.firebaseapp.com")
        let named = try Fixtures.load("{}", environment: ["LINKDOMAIN_AUTH_HANDLER_ORIGIN": "http://127.0.0.1:9000/"])
        #expect(named.authDomain.helperOrigin == "http://127.0.0.1:9000")
        let off = try Fixtures.load(#"{"backend": {"kind": "identityToolkit", "projectID": "my-project"}, "authHandler": {"origin": ""}}"#)
        #expect(off.authDomain.helperOrigin == nil)
    }

    @Test("a plain-HTTP origin off loopback, or one with a path, is refused naming the key")
    func badOrigins() {
        for origin in ["http://example.com", "https://example.com/__/auth", "ftp://example.com", "example.com"] {
            let problems = Fixtures.problems(#"{"authHandler": {"origin": "\#(origin)"}}"#)
            #expect(problems.map(\.key) == ["authHandler.origin"], "\(origin)")
        }
    }

    @Test("passkey origins are https origins without paths; the endpoints and change-password URLs are https")
    func passkeys() throws {
        let configuration = try Fixtures.load(
            #"{"passkeys": {"relatedOrigins": ["https://Example.com", "https://shop.example.com:8443"], "enrollURL": "https://example.com/passkeys/new", "manageURL": "https://example.com/passkeys"}, "changePasswordURL": "https://example.com/account/password"}"#
        )
        #expect(configuration.authDomain.relatedOrigins == ["https://example.com", "https://shop.example.com:8443"])
        #expect(configuration.authDomain.passkeyEnrollURL == "https://example.com/passkeys/new")
        #expect(configuration.authDomain.changePasswordURL == "https://example.com/account/password")
        #expect(Fixtures.problems(#"{"passkeys": {"relatedOrigins": ["https://example.com/login"]}}"#).map(\.key) == ["passkeys.relatedOrigins"])
        #expect(Fixtures.problems(#"{"passkeys": {"relatedOrigins": ["http://example.com"]}}"#).map(\.key) == ["passkeys.relatedOrigins"])
        #expect(Fixtures.problems(#"{"passkeys": {"enrollURL": "http://example.com/new"}}"#).map(\.key) == ["passkeys.enrollURL"])
        #expect(Fixtures.problems(#"{"changePasswordURL": "javascript:alert(1)"}"#).map(\.key) == ["changePasswordURL"])
    }

    @Test("the admin listener takes loopback addresses and Unix sockets only, and only with the embedded backend")
    func adminListen() throws {
        #expect(try Fixtures.load(#"{"admin": {"listen": "127.0.0.1:9099"}}"#).authDomain.adminListen == .tcp(host: "127.0.0.1", port: 9099))
        #expect(try Fixtures.load(#"{"admin": {"listen": "[::1]:9099"}}"#).authDomain.adminListen == .tcp(host: "::1", port: 9099))
        let socket = try Fixtures.load("{}", environment: ["LINKDOMAIN_ADMIN_LISTEN": "unix:/run/linkdomain/admin.sock"])
        #expect(socket.authDomain.adminListen == .unixSocket(path: "/run/linkdomain/admin.sock"))
        #expect(try Fixtures.load(#"{"admin": {"listen": "localhost:9099"}}"#).authDomain.adminListen == .tcp(host: "127.0.0.1", port: 9099))
        for address in [
            "0.0.0.0:9099", "10.0.0.5:9099", "[::]:9099", "example.com:9099", "127.0.0.1", "127.0.0.1:0", "unix:relative.sock", "127.0.0.+1:9099",
            "127.0.0.1.evil.com:9099", "[::ffff:127.0.0.1]:9099",
        ] {
            #expect(Fixtures.problems(#"{"admin": {"listen": "\#(address)"}}"#).map(\.key) == ["admin.listen"], "\(address)")
        }
        let remote = Fixtures.problems(#"{"admin": {"listen": "127.0.0.1:9099"}, "backend": {"kind": "emulator"}}"#)
        #expect(remote.map(\.key) == ["admin.listen"])
    }

    @Test("the web app's values are plain identifiers")
    func webApp() throws {
        let configuration = try Fixtures.load(
            #"{"webApp": {"appId": "1:1234567890:web:abc123", "messagingSenderId": "1234567890", "storageBucket": "p.appspot.com", "measurementId": "G-ABC123"}}"#
        )
        #expect(configuration.authDomain.webApp.appID == "1:1234567890:web:abc123")
        #expect(configuration.authDomain.webApp.measurementID == "G-ABC123")
        #expect(Fixtures.problems(#"{"webApp": {"appId": "<script>"}}"#).map(\.key) == ["webApp.appId"])
    }

    @Test("init.json names this host with its port, unless it is the scheme's default")
    func firebaseInit() throws {
        #expect(CredentialFiles.authDomain(publicBaseURL: "https://links.example.com") == "links.example.com")
        #expect(CredentialFiles.authDomain(publicBaseURL: "https://links.example.com:443") == "links.example.com")
        #expect(CredentialFiles.authDomain(publicBaseURL: "https://links.example.com:8443") == "links.example.com:8443")
        #expect(CredentialFiles.authDomain(publicBaseURL: "http://127.0.0.1:8080") == "127.0.0.1:8080")
        var configuration = try Fixtures.load(
            #"{"publicBaseURL": "https://links.example.com", "backend": {"kind": "identityToolkit"}, "webApp": {"appId": "1:2:web:3"}}"#)
        configuration.backend.apiKey = "AIzaKey"
        let document = try JSONSerialization.jsonObject(with: Data(CredentialFiles(configuration: configuration).firebaseInit.bytes)) as? [String: String]
        #expect(document == ["apiKey": "AIzaKey", "appId": "1:2:web:3", "authDomain": "links.example.com", "projectId": "demo-linkdomain"])
        let files = CredentialFiles(configuration: configuration)
        #expect(files.webauthn == nil && files.passkeyEndpoints == nil && files.changePasswordURL == nil)
    }
}
