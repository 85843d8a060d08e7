import Foundation
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Passkeys and password managers: get_login_creds and the well-known files")
struct CredentialFilesTests {
    @Test("an Android app with webcredentials gets get_login_creds beside handle_all_urls; one without keeps handle_all_urls alone")
    func getLoginCredentials() throws {
        let configuration = try Fixtures.load(
            """
            {"android": {"apps": [
                {"packageName": "com.example.mail", "fingerprints": ["\(Fixtures.fingerprintA)"], "webcredentials": true},
                {"packageName": "com.example.shop", "fingerprints": ["\(Fixtures.fingerprintB)"]}
            ]}}
            """)
        let statements = try #require(
            try JSONSerialization.jsonObject(with: Data(AssociationFiles(configuration: configuration).android.bytes)) as? [[String: Any]])
        #expect(
            statements.map { $0["relation"] as? [String] } == [
                ["delegate_permission/common.handle_all_urls", "delegate_permission/common.get_login_creds"],
                ["delegate_permission/common.handle_all_urls"],
            ])
        let target = try #require(statements[0]["target"] as? [String: Any])
        #expect(target["package_name"] as? String == "com.example.mail")
    }

    @Test("webauthn and passkey-endpoints hold exactly the configured values")
    func documents() throws {
        let files = CredentialFiles(
            configuration: try Fixtures.load(
                #"{"passkeys": {"relatedOrigins": ["https://example.com", "https://example.co.uk"], "manageURL": "https://example.com/passkeys"}}"#))
        let webauthn = try JSONSerialization.jsonObject(with: Data(try #require(files.webauthn).bytes)) as? [String: [String]]
        #expect(webauthn == ["origins": ["https://example.com", "https://example.co.uk"]])
        let endpoints = try JSONSerialization.jsonObject(with: Data(try #require(files.passkeyEndpoints).bytes)) as? [String: String]
        #expect(endpoints == ["manage": "https://example.com/passkeys"])
    }
}
