import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkDomain
@testable import LinkDomainCore
import LinkDomainExercises
@testable import LinkDomainStorage
import NIOCore
import NIOFoundationEssentialsCompat
import Testing

/// The wrong answers outside clients met, each fixed, spoken in the wire format the clients use.
@Suite("Embedded backend: answers as Google's and the emulator's")
struct CompatibilityTests {
    /// The claims of an ID token (its signature is not this test's concern).
    static func claims(_ token: String?) -> [String: Any] {
        guard let token, let payload = token.split(separator: ".").dropFirst().first, let data = Base64URL.decode(payload),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [:] }
        return object
    }

    static func firebase(_ claims: [String: Any]) -> [String: Any] { claims["firebase"] as? [String: Any] ?? [:] }

    @Test("refresh: grant_type or grantType, form or JSON; MISSING_GRANT_TYPE; auth_time stays the sign-in's")
    func refresh() async throws {
        let harness = BackendHarness()
        try await harness.run { client in
            let signedIn = try await client.signUp("refresh@example.com")
            let token = try #require(signedIn.string("refreshToken"))
            harness.clock.advance(seconds: 120)
            let path = "/securetoken.googleapis.com/v1/token?key=k"
            let json = try await client.post(path, ["grantType": "refresh_token", "refreshToken": token])
            #expect(json.status == .ok && json.string("user_id") == signedIn.string("localId"))
            let form = try await client.client.execute(
                uri: path, method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "grant_type=refresh_token&refresh_token=\(token)")
            ) {
                try JSONSerialization.jsonObject(with: Data(buffer: $0.body)) as? [String: Any] ?? [:]
            }
            let original = Self.claims(signedIn.string("idToken")), refreshed = Self.claims(form["id_token"] as? String)
            #expect(refreshed["auth_time"] as? Int == original["auth_time"] as? Int)
            #expect((refreshed["iat"] as? Int ?? 0) >= (original["iat"] as? Int ?? 0) + 120)
            #expect(try await client.post(path, ["refresh_token": token]).errorMessage == "MISSING_GRANT_TYPE")
            #expect(try await client.post(path, ["grant_type": "password", "refresh_token": token]).errorMessage == "INVALID_GRANT_TYPE")
        }
    }

    @Test("signUp: an anonymous account upgrades in place; empty strings are values; anonymous accounts have no password")
    func signUpRules() async throws {
        try await BackendHarness().run { client in
            let anonymous = try await client.call("accounts:signUp", ["returnSecureToken": true, "password": ""])
            let localID = try #require(anonymous.string("localId"))
            #expect(Self.claims(anonymous.string("idToken"))["provider_id"] as? String == "anonymous")
            #expect(Self.firebase(Self.claims(anonymous.string("idToken")))["sign_in_provider"] as? String == "anonymous")
            let lookedUp = try await client.admin("accounts:lookup", ["localId": [localID]])
            let user = try #require((lookedUp["users"] as? [[String: Any]])?.first)
            #expect(user["passwordHash"] == nil && (user["providerUserInfo"] as? [Any])?.isEmpty == true)
            #expect(try await client.call("accounts:signUp", ["password": "secret1"]).errorMessage == "MISSING_EMAIL")
            #expect(try await client.call("accounts:signUp", ["email": "", "password": "secret1"]).errorMessage == "INVALID_EMAIL")
            #expect(try await client.call("accounts:signUp", ["email": "e@example.com", "password": ""]).errorMessage == "MISSING_PASSWORD")
            let upgraded = try await client.call(
                "accounts:signUp",
                [
                    "idToken": anonymous.string("idToken") ?? "", "email": "up@example.com",
                    "password": "secret1", "returnSecureToken": true,
                ])
            #expect(upgraded.string("localId") == localID && upgraded.string("email") == "up@example.com")
            #expect(Self.firebase(Self.claims(upgraded.string("idToken")))["sign_in_provider"] as? String == "password")
        }
    }

    @Test("signInWithEmailLink with another address's ID token moves that account to the link's address")
    func emailLinkLinking() async throws {
        try await BackendHarness().run { client in
            let signedIn = try await client.signUp("old@example.com")
            let code = try await client.code("EMAIL_SIGNIN", email: "new@example.com", extra: ["continueUrl": "https://app.example.com/"])
            let linked = try await client.call(
                "accounts:signInWithEmailLink",
                [
                    "email": "new@example.com", "oobCode": code,
                    "idToken": signedIn.string("idToken") ?? "",
                ])
            #expect(linked.string("localId") == signedIn.string("localId") && linked.string("email") == "new@example.com")
            #expect(Self.firebase(Self.claims(linked.string("idToken")))["sign_in_provider"] as? String == "password")
            let user = try await client.admin("accounts:lookup", ["localId": [signedIn.string("localId") ?? ""]])
            #expect((user["users"] as? [[String: Any]])?.first?["email"] as? String == "new@example.com")
            // The account keeps its password, now with the proven address.
            let again = try await client.call("accounts:signInWithPassword", ["email": "new@example.com", "password": "correct horse"])
            #expect(again.status == .ok, "\(again.json)")
        }
    }

    @Test("custom claims: stored, looked up, in ID tokens; reserved names refused as Google refuses them")
    func customClaims() async throws {
        try await BackendHarness().run { client in
            let signedIn = try await client.signUp("claims@example.com")
            let localID = signedIn.string("localId") ?? ""
            #expect(try await client.admin("accounts:update", ["localId": localID, "customAttributes": #"{"role":"admin"}"#]).status == .ok)
            let user = try await client.admin("accounts:lookup", ["localId": [localID, localID], "email": ["claims@example.com"]])
            let users = try #require(user["users"] as? [[String: Any]])
            #expect(users.count == 1 && users.first?["customAttributes"] as? String == #"{"role":"admin"}"#)
            #expect(users.first?["lastRefreshAt"] is String)
            let again = try await client.call("accounts:signInWithPassword", ["email": "claims@example.com", "password": "correct horse"])
            #expect(Self.claims(again.string("idToken"))["role"] as? String == "admin")
            #expect(
                try await client.admin("accounts:update", ["localId": localID, "customAttributes": #"{"aud":"x"}"#]).errorMessage
                    == "FORBIDDEN_CLAIM : aud")
            #expect(try await client.admin("accounts:update", ["localId": localID, "customAttributes": "[1]"]).errorMessage == "INVALID_CLAIMS")
            #expect(
                try await client.call("accounts:update", ["idToken": again.string("idToken") ?? "", "customAttributes": "{}"]).errorMessage
                    == "INSUFFICIENT_PERMISSION")
        }
    }

    @Test("createAuthUri: MISSING_IDENTIFIER, MISSING_CONTINUE_URI, the session ID echoed; VERIFY_EMAIL for nobody is USER_NOT_FOUND")
    func smallErrors() async throws {
        try await BackendHarness().run { client in
            #expect(try await client.call("accounts:createAuthUri", ["continueUri": "https://app.example.com/"]).errorMessage == "MISSING_IDENTIFIER")
            #expect(try await client.call("accounts:createAuthUri", ["identifier": "a@example.com"]).errorMessage == "MISSING_CONTINUE_URI")
            let answer = try await client.call(
                "accounts:createAuthUri",
                [
                    "identifier": "a@example.com", "continueUri": "https://app.example.com/",
                    "sessionId": "session-1",
                ])
            #expect(answer.string("sessionId") == "session-1")
            #expect(
                try await client.admin("accounts:sendOobCode", ["requestType": "VERIFY_EMAIL", "email": "nobody@example.com"]).errorMessage
                    == "USER_NOT_FOUND")
        }
    }

    @Test("a continue URL with non-ASCII text is accepted, mailed, and escaped in the 303 Location")
    func nonASCIIContinueURL() async throws {
        try await BackendHarness().run { client in
            let sent = try await client.admin(
                "accounts:sendOobCode",
                [
                    "requestType": "EMAIL_SIGNIN", "email": "u@example.com", "returnOobLink": true,
                    "continueUrl": "https://app.example.com/café?q=ü#frag",
                ])
            let link = try #require(sent.string("oobLink"))
            #expect(link.contains("caf%C3%A9") && link.allSatisfy(\.isASCII))
            let path = String(link.dropFirst("https://links.example.com".count))
            let page = try await client.page(path)
            #expect(page.status == .seeOther)
            let location = try #require(page.headers[.location])
            #expect(location.hasPrefix("https://app.example.com/caf%C3%A9?q=%C3%BC&apiKey=") && location.hasSuffix("#frag"))
        }
    }

    @Test("phone numbers: E.164 only, one account each, found by lookup")
    func phoneNumbers() async throws {
        try await BackendHarness().run { client in
            let created = try await client.admin("accounts", ["phoneNumber": "+15555550123"])
            #expect(created.status == .ok)
            #expect(try await client.admin("accounts", ["phoneNumber": "+15555550123"]).errorMessage == "PHONE_NUMBER_EXISTS")
            #expect(try await client.admin("accounts", ["phoneNumber": "555"]).errorMessage == "INVALID_PHONE_NUMBER : Invalid format.")
            let found = try await client.admin("accounts:lookup", ["phoneNumber": ["+15555550123"]])
            #expect((found["users"] as? [[String: Any]])?.first?["localId"] as? String == created.string("localId"))
            #expect(
                try await client.admin("accounts:update", ["localId": created.string("localId") ?? "", "mfa": ["enrollments": []]]).status
                    == .badRequest)
        }
    }

    @Test("listing, batch delete, the emulator's reset and configuration hooks")
    func adminSurface() async throws {
        try await BackendHarness().run { client in
            for index in 0..<3 { _ = try await client.admin("accounts", ["localId": "u\(index)"]) }
            let first = try await client.client.execute(
                uri: BackendClient.admin + "/accounts:batchGet?maxResults=2", method: .get,
                headers: [.authorization: "Bearer owner"]
            ) {
                try JSONSerialization.jsonObject(with: Data(buffer: $0.body)) as? [String: Any] ?? [:]
            }
            #expect((first["users"] as? [[String: Any]])?.map { $0["localId"] as? String } == ["u0", "u1"])
            #expect(first["nextPageToken"] as? String == "u1")
            let deleted = try await client.admin("accounts:batchDelete", ["localIds": ["u0", "nobody"]])
            #expect((deleted["errors"] as? [[String: Any]])?.first?["message"] as? String == "NOT_DISABLED : Disable the account before batch deletion.")
            #expect(try await client.admin("accounts:batchDelete", ["localIds": ["u0", "nobody"], "force": true]).json.isEmpty)
            let config = try await client.client.execute(
                uri: "/emulator/v1/projects/\(BackendHarness.projectID)/config", method: .patch,
                headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"emailPrivacyConfig":{"enableImprovedEmailPrivacy":false}}"#)
            ) {
                String(buffer: $0.body)
            }
            #expect(config.contains(#""enableImprovedEmailPrivacy":false"#))
            _ = try await client.client.execute(uri: "/emulator/v1/projects/\(BackendHarness.projectID)/accounts", method: .delete) { _ in }
            #expect(try await client.admin("accounts:lookup", ["localId": ["u1", "u2"]]).json["users"] == nil)
        }
    }

    @Test("custom tokens (unsigned, as the admin SDKs mint them for an emulator) and session cookies")
    func customTokens() async throws {
        try await BackendHarness().run { client in
            let payload = #"{"uid":"custom-1","claims":{"tier":"gold"},"aud":"\#(AccountService.customTokenAudience)"}"#
            let token = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "." + Base64URL.encode(Array(payload.utf8)) + "."
            let signedIn = try await client.call("accounts:signInWithCustomToken", ["token": token, "returnSecureToken": true])
            #expect(signedIn.status == .ok && signedIn["isNewUser"] as? Bool == true)
            let claims = Self.claims(signedIn.string("idToken"))
            #expect(claims["tier"] as? String == "gold" && Self.firebase(claims)["sign_in_provider"] as? String == "custom")
            #expect(
                try await client.call("accounts:signInWithCustomToken", ["token": "x.y.z"]).errorMessage == "INVALID_CUSTOM_TOKEN : Invalid assertion format")
            let cookie = try await client.post(
                BackendClient.admin + ":createSessionCookie", ["idToken": signedIn.string("idToken") ?? "", "validDuration": 600],
                headers: [.authorization: "Bearer owner"])
            let session = Self.claims(cookie.string("sessionCookie"))
            #expect(session["iss"] as? String == "https://session.firebase.google.com/\(BackendHarness.projectID)" && session["tier"] as? String == "gold")
            #expect((session["exp"] as? Int ?? 0) - (session["iat"] as? Int ?? 0) == 600)
            #expect(
                try await client.post(
                    BackendClient.admin + ":createSessionCookie", ["idToken": "not.a.token"],
                    headers: [.authorization: "Bearer owner"]
                ).errorMessage == "INVALID_ID_TOKEN")
        }
    }

    @Test("provider configurations (v2) are refused, never stored: empty listings, not found, not allowed")
    func providerConfigurations() async throws {
        try await BackendHarness().run { client in
            let v2 = "/identitytoolkit.googleapis.com/v2/projects/\(BackendHarness.projectID)"
            let listing = try await client.client.execute(uri: v2 + "/oauthIdpConfigs", method: .get, headers: [.authorization: "Bearer owner"]) { $0 }
            #expect(listing.status == .ok && String(buffer: listing.body) == "{}")
            let created = try await client.post(
                v2 + "/oauthIdpConfigs?oauthIdpConfigId=oidc.x", ["clientId": "c", "issuer": "https://i.example.com"],
                headers: [.authorization: "Bearer owner"])
            #expect(created.errorMessage == "OPERATION_NOT_ALLOWED : sign-in provider configurations are not supported by this backend")
            let one = try await client.client.execute(uri: v2 + "/oauthIdpConfigs/oidc.x", method: .get, headers: [.authorization: "Bearer owner"]) { $0 }
            #expect(one.status == .notFound && String(buffer: one.body).contains("CONFIGURATION_NOT_FOUND"))
        }
    }
}
