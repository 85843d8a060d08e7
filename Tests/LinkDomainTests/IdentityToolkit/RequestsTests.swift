import Foundation
import Testing

@testable import LinkDomain
@testable import LinkDomainCore

@Suite("Identity Toolkit requests: each operation's fields read as Google's API reads them")
struct RequestsTests {
    /// A body as a client sends it, through the checked decoder, as the operation it is for reads it.
    static func read<Request: Decodable>(_ json: String, as type: Request.Type, form: Bool = false) throws -> Request {
        try RequestBodyDecoder.decode(Array(json.utf8), contentType: form ? "application/x-www-form-urlencoded" : "application/json").decode(type)
    }

    @Test("numbers as strings, booleans as strings, one string for a list, empty strings as absent")
    func lenient() throws {
        let update = try Self.read(
            #"{"localId": 42, "disableUser": "true", "validSince": "1700000000", "deleteAttribute": "DISPLAY_NAME", "password": "", "returnSecureToken": "false"}"#,
            as: UpdateAccountRequest.self)
        #expect(update.localID == "42" && update.disabled == true && update.validSince == .value(1_700_000_000))
        #expect(update.deleteAttributes == [.displayName] && update.password == nil && update.returnSecureToken == false)
        let form = try Self.read("maxResults=5&nextPageToken=abc", as: BatchGetRequest.self, form: true)
        #expect(form.maxResults == .value(5) && form.nextPageToken == "abc")
    }

    @Test("a field of the wrong type is absent, not a failed request; a number that is not whole is refused where it is checked")
    func wrongTypes() throws {
        let signIn = try Self.read(#"{"email": ["a@example.com"], "password": {"x": 1}}"#, as: SignInWithPasswordRequest.self)
        #expect(signIn.email == nil && signIn.password == nil)
        let cookie = try Self.read(#"{"idToken": "T", "validDuration": "soon"}"#, as: CreateSessionCookieRequest.self)
        #expect(cookie.validDuration == .malformed)
        #expect(throws: IdentityToolkitError(.invalidDuration)) { try cookie.validDuration.within(300...600, else: IdentityToolkitError(.invalidDuration)) }
        #expect(try WholeNumber.absent.within(1...2, else: .internalError) == nil)
        #expect(throws: IdentityToolkitError.internalError) { try WholeNumber.value(3).within(1...2, else: .internalError) }
    }

    @Test("an update tells a field left alone from one cleared: absent or null keeps it, empty clears it")
    func updatesKeepOrReplace() throws {
        let cleared = try Self.read(#"{"displayName": "", "photoUrl": "https://example.com/a.png"}"#, as: UpdateAccountRequest.self)
        #expect(cleared.displayName == .replace(with: nil) && cleared.photoURL == .replace(with: "https://example.com/a.png"))
        #expect(cleared.displayName.applied(to: "Ada") == nil && FieldUpdate<String>.keep.applied(to: "Ada") == "Ada")
        let untouched = try Self.read(#"{"displayName": null}"#, as: UpdateAccountRequest.self)
        #expect(untouched.displayName == .keep)
    }

    @Test("features this backend lacks are named, so the operation refuses them")
    func unsupported() throws {
        #expect(try Self.read(#"{"email": "a@example.com", "mfaInfo": []}"#, as: SignUpRequest.self).unsupportedField == "mfaInfo")
        #expect(try Self.read(#"{"localId": "u", "provider": "x"}"#, as: UpdateAccountRequest.self).unsupportedField == "provider")
        #expect(try Self.read(#"{"localId": "u"}"#, as: UpdateAccountRequest.self).unsupportedField == nil)
    }

    @Test("lists of objects keep their places: an entry that is not an object is nil, so an import can name its index")
    func entries() throws {
        let batch = try Self.read(
            #"{"users": [{"localId": "a", "providerUserInfo": [7, {"providerId": "google.com"}]}, "oops"], "hashAlgorithm": "BCRYPT"}"#,
            as: BatchCreateRequest.self)
        let users = try #require(batch.users)
        #expect(users.count == 2 && users[0]?.localID == "a" && users[1] == nil)
        #expect(users[0]?.providerUserInfo.count == 2 && users[0]?.providerUserInfo[0] == nil && users[0]?.providerUserInfo[1]?.rawID == nil)
        #expect(try Self.read(#"{"users": "none"}"#, as: BatchCreateRequest.self).users == nil)
        let lookup = try Self.read(
            #"{"federatedUserId": [{"providerId": "google.com", "rawId": "1"}, {"providerId": "x"}, 3], "email": "a@example.com"}"#,
            as: LookupRequest.self)
        #expect(lookup.federatedUserIDs == [FederatedIdentity(providerID: "google.com", rawID: "1")] && lookup.emails == ["a@example.com"])
    }

    @Test("sendOobCode's settings sit beside its other fields, read and written flat as Identity Toolkit has them")
    func flatSettings() throws {
        let request = try Self.read(
            #"{"requestType": "EMAIL_SIGNIN", "email": "a@example.com", "continueUrl": "https://example.com/", "canHandleCodeInApp": "true", "iOSBundleId": "com.example.app"}"#,
            as: SendOobCodeRequest.self)
        #expect(request.settings.continueURL == "https://example.com/" && request.settings.opensInApp)
        let written = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(request))
        #expect(
            written
                == .object([
                    "requestType": .string("EMAIL_SIGNIN"), "email": .string("a@example.com"), "continueUrl": .string("https://example.com/"),
                    "canHandleCodeInApp": .boolean(true), "iOSBundleId": .string("com.example.app"),
                ]))
    }

    @Test("the emulator's configuration patch reads only booleans where it takes them")
    func emulatorPatch() throws {
        let patch = try Self.read(
            #"{"emailPrivacyConfig": {"enableImprovedEmailPrivacy": false}, "signIn": {"allowDuplicateEmails": true}}"#, as: EmulatorConfigPatch.self)
        #expect(patch.enableImprovedEmailPrivacy == false && patch.allowsDuplicateEmails)
        let loose = try Self.read(#"{"emailPrivacyConfig": {"enableImprovedEmailPrivacy": "false"}, "signIn": 3}"#, as: EmulatorConfigPatch.self)
        #expect(loose.enableImprovedEmailPrivacy == nil && !loose.allowsDuplicateEmails)
    }
}
