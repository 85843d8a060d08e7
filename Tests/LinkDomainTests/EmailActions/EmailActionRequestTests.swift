import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Email action requests: Identity Toolkit's body, read and checked before anything is asked of a backend")
struct EmailActionRequestTests {
    static func read(_ fields: [String: JSONValue], locale: String? = nil) throws(IdentityToolkitError) -> EmailActionRequest {
        try EmailActionRequest(RequestBody(fields).decode(), locale: locale)
    }

    @Test("each request type names its subject; ActionCodeSettings pass through, link domains and fields Google does not take do not")
    func accepted() throws {
        let reset = try Self.read([
            "requestType": .string("PASSWORD_RESET"), "email": .string(" User@Example.com "),
            "continueUrl": .string("https://example.com/"), "linkDomain": .string("elsewhere.example"),
            "iOSBundleId": .string("com.example.app"), "lang": .string("ru"), "dynamicLinkDomain": .string("x.page.link"),
            "androidMinimumVersionCode": .string("12"),
        ])
        var expected = ActionCodeSettingsFields(continueURL: "https://example.com/")
        expected.iOSBundleID = "com.example.app"
        #expect(reset.subject == .email("user@example.com") && reset.settings == expected)
        #expect(reset.opensInApp && reset.languageCode == "ru")
        let signIn = try Self.read(
            [
                "requestType": .string("EMAIL_SIGNIN"), "email": .string("a@example.com"),
                "continueUrl": .string("https://example.com/"), "canHandleCodeInApp": .boolean(false),
            ], locale: "tr")
        #expect(!signIn.opensInApp && signIn.languageCode == "tr")
        let change = try Self.read([
            "requestType": .string("VERIFY_AND_CHANGE_EMAIL"), "idToken": .string("T"), "newEmail": .string("New@Example.com"),
            "tenantId": .string("tenant-1"),
        ])
        #expect(change.subject == .idToken("T") && change.newEmail == "new@example.com" && change.tenantID == "tenant-1")
    }

    @Test(
        "refusals in Identity Toolkit's words",
        arguments: [
            (["email": "a@example.com"], "MISSING_REQ_TYPE"),
            (["requestType": "SEND_ME_EVERYTHING"], "INVALID_REQ_TYPE"),
            (["requestType": "RECOVER_EMAIL", "email": "a@example.com"], "INVALID_REQ_TYPE"),
            (["requestType": "PASSWORD_RESET"], "MISSING_EMAIL"),
            (["requestType": "PASSWORD_RESET", "email": "a@example.com\r\nBcc: everyone@example.com"], "INVALID_EMAIL"),
            (["requestType": "EMAIL_SIGNIN", "email": "a@example.com"], "MISSING_CONTINUE_URI"),
            (["requestType": "VERIFY_EMAIL", "email": "a@example.com"], "MISSING_ID_TOKEN"),
            (["requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": "T"], "MISSING_NEW_EMAIL"),
            (["requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": "T", "newEmail": "not an address"], "INVALID_NEW_EMAIL"),
        ] as [([String: String], String)])
    func refused(fields: [String: String], code: String) {
        #expect { try Self.read(fields.mapValues { .string($0) }) } throws: { ($0 as? IdentityToolkitError)?.code.rawValue == code }
    }
}
