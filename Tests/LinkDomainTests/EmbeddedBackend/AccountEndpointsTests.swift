import Foundation
import HTTPTypes
@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage
import Testing

@Suite("Embedded backend: accounts, passwords and tokens over HTTP")
struct AccountEndpointsTests {
    @Test("signUp creates an account with tokens; the password is stored hashed, never in clear")
    func signUp() async throws {
        let harness = BackendHarness()
        try await harness.run { client in
            let answer = try await client.signUp("Ada@Example.com", password: "s3cret-pass")
            #expect(answer.string("kind") == "identitytoolkit#SignupNewUserResponse")
            #expect(answer.string("email") == "ada@example.com")
            #expect(answer.string("expiresIn") == "3600")
            #expect(answer.string("idToken")?.split(separator: ".").count == 3)
            #expect((answer.string("refreshToken")?.count ?? 0) >= 40)
            #expect(answer.string("localId")?.count == 28)
        }
        let bytes =
            try Data(contentsOf: URL(fileURLWithPath: harness.databasePath))
            + ((try? Data(contentsOf: URL(fileURLWithPath: harness.databasePath + "-wal"))) ?? Data())
        #expect(bytes.range(of: Data("s3cret-pass".utf8)) == nil)
        #expect(bytes.range(of: Data("scrypt$".utf8)) != nil)
    }

    @Test("signUp errors: EMAIL_EXISTS, WEAK_PASSWORD, INVALID_EMAIL, MISSING_PASSWORD, missing API key")
    func signUpErrors() async throws {
        try await BackendHarness().run { client in
            _ = try await client.signUp("ada@example.com")
            let again = try await client.call("accounts:signUp", ["email": "ADA@example.com", "password": "another one"])
            #expect(again.status == .badRequest)
            #expect(again.errorMessage == "EMAIL_EXISTS")
            #expect(
                try await client.call("accounts:signUp", ["email": "b@example.com", "password": "12345"]).errorMessage
                    == "WEAK_PASSWORD : Password should be at least 6 characters")
            #expect(try await client.call("accounts:signUp", ["email": "not-an-email", "password": "123456"]).errorMessage == "INVALID_EMAIL")
            #expect(try await client.call("accounts:signUp", ["email": "c@example.com"]).errorMessage == "MISSING_PASSWORD")
            let noKey = try await client.call("accounts:signUp", ["email": "d@example.com", "password": "123456"], key: nil)
            #expect(noKey.status == .forbidden)
            let error = try #require(noKey.json["error"] as? [String: Any])
            #expect(error["code"] as? Int == 403)
            #expect((error["errors"] as? [[String: Any]])?.first?["domain"] as? String == "global")
        }
    }

    @Test("signInWithPassword: right password signs in; wrong ones reveal nothing under enumeration protection")
    func passwordSignIn() async throws {
        try await BackendHarness().run { client in
            _ = try await client.signUp("ada@example.com", password: "right-password")
            let ok = try await client.call("accounts:signInWithPassword", ["email": "ada@example.com", "password": "right-password"])
            #expect(ok.status == .ok)
            #expect(ok["registered"] as? Bool == true)
            #expect(ok.string("kind") == "identitytoolkit#VerifyPasswordResponse")
            for (email, password) in [("ada@example.com", "wrong-password"), ("nobody@example.com", "whatever")] {
                #expect(
                    try await client.call("accounts:signInWithPassword", ["email": email, "password": password]).errorMessage
                        == "INVALID_LOGIN_CREDENTIALS")
            }
        }
    }

    @Test("without enumeration protection the errors say EMAIL_NOT_FOUND and INVALID_PASSWORD")
    func passwordSignInUnprotected() async throws {
        try await BackendHarness(emailEnumerationProtection: false).run { client in
            _ = try await client.signUp("ada@example.com", password: "right-password")
            #expect(
                try await client.call("accounts:signInWithPassword", ["email": "ada@example.com", "password": "nope-nope"]).errorMessage
                    == "INVALID_PASSWORD")
            #expect(
                try await client.call("accounts:signInWithPassword", ["email": "x@example.com", "password": "nope-nope"]).errorMessage
                    == "EMAIL_NOT_FOUND")
        }
    }

    @Test("a disabled account cannot sign in: USER_DISABLED")
    func disabled() async throws {
        try await BackendHarness().run { client in
            let user = try await client.signUp("ada@example.com", password: "right-password")
            let update = try await client.admin("accounts:update", ["localId": user.string("localId")!, "disableUser": true])
            #expect(update.status == .ok)
            #expect(
                try await client.call("accounts:signInWithPassword", ["email": "ada@example.com", "password": "right-password"]).errorMessage
                    == "USER_DISABLED")
        }
    }

    @Test("createAuthUri reveals nothing under enumeration protection, sign-in methods otherwise")
    func createAuthURI() async throws {
        try await BackendHarness().run { client in
            _ = try await client.signUp("ada@example.com")
            let answer = try await client.call("accounts:createAuthUri", ["identifier": "ada@example.com", "continueUri": "https://app.example.com"])
            #expect(answer.status == .ok)
            #expect(answer["signinMethods"] == nil && answer["registered"] == nil)
            #expect(answer.string("sessionId") != nil)
        }
        try await BackendHarness(emailEnumerationProtection: false).run { client in
            _ = try await client.signUp("ada@example.com")
            let known = try await client.call("accounts:createAuthUri", ["identifier": "ada@example.com", "continueUri": "https://app.example.com"])
            #expect(known["registered"] as? Bool == true)
            #expect(known["signinMethods"] as? [String] == ["password"])
            let code = try await client.code("EMAIL_SIGNIN", email: "link@example.com", extra: ["continueUrl": "https://app.example.com/done"])
            _ = try await client.call("accounts:signInWithEmailLink", ["email": "link@example.com", "oobCode": code])
            let linked = try await client.call("accounts:createAuthUri", ["identifier": "link@example.com", "continueUri": "https://app.example.com"])
            #expect(linked["signinMethods"] as? [String] == ["emailLink"])
            let unknown = try await client.call("accounts:createAuthUri", ["identifier": "x@example.com", "continueUri": "https://app.example.com"])
            #expect(unknown["registered"] as? Bool == false)
        }
    }

    @Test("accounts:update with an idToken changes profile and password; lookup and delete by the user")
    func selfService() async throws {
        try await BackendHarness().run { client in
            let user = try await client.signUp("ada@example.com", password: "first-password")
            let idToken = user.string("idToken")!
            let updated = try await client.call("accounts:update", ["idToken": idToken, "displayName": "Ada", "photoUrl": "https://p.example.com/a.png"])
            #expect(updated.string("displayName") == "Ada")
            let changed = try await client.call("accounts:update", ["idToken": idToken, "password": "second-password", "returnSecureToken": true])
            #expect(changed.status == .ok)
            let newToken = try #require(changed.string("idToken"))
            #expect(try await client.call("accounts:signInWithPassword", ["email": "ada@example.com", "password": "second-password"]).status == .ok)
            let lookup = try await client.call("accounts:lookup", ["idToken": newToken])
            let users = try #require(lookup["users"] as? [[String: Any]])
            #expect(users.first?["displayName"] as? String == "Ada")
            #expect(users.first?["passwordHash"] == nil)
            #expect(try await client.call("accounts:lookup", ["idToken": "not.a.token"]).errorMessage == "INVALID_ID_TOKEN")
            #expect(try await client.call("accounts:delete", ["idToken": newToken]).string("kind") == "identitytoolkit#DeleteAccountResponse")
            #expect(try await client.call("accounts:lookup", ["idToken": newToken]).errorMessage == "USER_NOT_FOUND")
        }
    }

    @Test("changing the email with an idToken mails the old address a RECOVER_EMAIL code that undoes it")
    func emailChangeRecovery() async throws {
        try await BackendHarness().run { client in
            let user = try await client.signUp("old@example.com")
            let changed = try await client.call("accounts:update", ["idToken": user.string("idToken")!, "email": "new@example.com"])
            #expect(changed.string("email") == "new@example.com")
            let recover = try #require(try await client.oobCodes().first { $0["requestType"] as? String == "RECOVER_EMAIL" })
            #expect(recover["email"] as? String == "old@example.com")
            let applied = try await client.call("accounts:update", ["oobCode": recover["oobCode"] as! String])
            #expect(applied.string("email") == "old@example.com")
            #expect(applied["emailVerified"] as? Bool == true)
        }
    }

    @Test("refresh tokens give new ID tokens; unknown ones are INVALID_REFRESH_TOKEN")
    func refresh() async throws {
        try await BackendHarness().run { client in
            let user = try await client.signUp("ada@example.com")
            let refreshed = try await client.post(
                "/securetoken.googleapis.com/v1/token?key=k",
                ["grant_type": "refresh_token", "refresh_token": user.string("refreshToken")!])
            #expect(refreshed.status == .ok)
            #expect(refreshed.string("user_id") == user.string("localId"))
            #expect(refreshed.string("token_type") == "Bearer")
            #expect(refreshed.string("id_token") != nil)
            let bad = try await client.post("/securetoken.googleapis.com/v1/token?key=k", ["grant_type": "refresh_token", "refresh_token": "nope"])
            #expect(bad.errorMessage == "INVALID_REFRESH_TOKEN")
        }
    }

    @Test("ID tokens carry the claims Firebase ID tokens carry")
    func idTokenClaims() async throws {
        try await BackendHarness().run { client in
            let user = try await client.signUp("ada@example.com")
            let payload = try #require(user.string("idToken")?.split(separator: ".").dropFirst().first)
            var base64 = payload.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
            let claims = try #require(try JSONSerialization.jsonObject(with: Data(base64Encoded: base64)!) as? [String: Any])
            #expect(claims["iss"] as? String == "https://securetoken.google.com/demo-linkdomain")
            #expect(claims["aud"] as? String == "demo-linkdomain")
            #expect(claims["sub"] as? String == user.string("localId"))
            #expect(claims["user_id"] as? String == user.string("localId"))
            #expect(claims["email"] as? String == "ada@example.com")
            #expect(claims["email_verified"] as? Bool == false)
            #expect((claims["exp"] as? Int ?? 0) - (claims["iat"] as? Int ?? 0) == 3600)
            #expect(claims["auth_time"] != nil)
            let firebase = try #require(claims["firebase"] as? [String: Any])
            #expect(firebase["sign_in_provider"] as? String == "password")
            #expect((firebase["identities"] as? [String: [String]])?["email"] == ["ada@example.com"])
        }
    }

    @Test("admin calls: create, get, update, delete users as firebase-admin makes them")
    func adminUsers() async throws {
        try await BackendHarness().run { client in
            let created = try await client.admin(
                "accounts",
                [
                    "email": "admin-made@example.com", "password": "p4ssword", "displayName": "Made",
                    "emailVerified": true, "localId": "uid-123",
                ])
            #expect(created.string("localId") == "uid-123")
            #expect(try await client.admin("accounts", ["localId": "uid-123"]).errorMessage == "DUPLICATE_LOCAL_ID")
            let found = try await client.admin("accounts:lookup", ["localId": ["uid-123"]])
            let user = try #require((found["users"] as? [[String: Any]])?.first)
            #expect(user["email"] as? String == "admin-made@example.com")
            #expect(user["emailVerified"] as? Bool == true)
            #expect(user["displayName"] as? String == "Made")
            #expect(try await client.admin("accounts:lookup", ["email": ["admin-made@example.com"]])["users"] != nil)
            #expect(try await client.admin("accounts:lookup", ["localId": ["missing"]])["users"] == nil)
            _ = try await client.admin("accounts:update", ["localId": "uid-123", "displayName": "Renamed", "emailVerified": false])
            let renamed = try await client.admin("accounts:lookup", ["localId": ["uid-123"]])
            #expect((renamed["users"] as? [[String: Any]])?.first?["displayName"] as? String == "Renamed")
            #expect(try await client.admin("accounts:delete", ["localId": "uid-123"]).status == .ok)
            #expect(try await client.admin("accounts:delete", ["localId": "uid-123"]).errorMessage == "USER_NOT_FOUND")
            #expect(try await client.post(BackendClient.admin + "/accounts:lookup", ["localId": ["x"]]).status == .forbidden)
        }
    }

    @Test("tenants are separate: the same email in two tenants is two accounts")
    func tenants() async throws {
        try await BackendHarness().run { client in
            let one = try await client.admin("accounts", ["email": "ada@example.com", "password": "123456"], tenant: "tenant-a")
            let two = try await client.admin("accounts", ["email": "ada@example.com", "password": "123456"], tenant: "tenant-b")
            #expect(one.status == .ok && two.status == .ok)
            #expect(one.string("localId") != two.string("localId"))
            let inA = try await client.call("accounts:signInWithPassword", ["email": "ada@example.com", "password": "123456", "tenantId": "tenant-a"])
            #expect(inA.string("localId") == one.string("localId"))
            #expect(
                try await client.call("accounts:signInWithPassword", ["email": "ada@example.com", "password": "123456"]).errorMessage
                    == "INVALID_LOGIN_CREDENTIALS")
        }
    }

    @Test("project configuration and the legacy v3 paths")
    func projectAndLegacy() async throws {
        try await BackendHarness().run { client in
            let project = try await client.get("/identitytoolkit.googleapis.com/v1/projects?key=k")
            #expect(project.string("projectId") == "demo-linkdomain")
            #expect(project["authorizedDomains"] as? [String] == ["app.example.com", "links.example.com"])
            let legacyConfig = try await client.get("/www.googleapis.com/identitytoolkit/v3/relyingparty/getProjectConfig?key=k")
            #expect(legacyConfig.string("projectId") == "demo-linkdomain")
            _ = try await client.signUp("ada@example.com")
            let legacy = try await client.post(
                "/www.googleapis.com/identitytoolkit/v3/relyingparty/getOobConfirmationCode?key=k",
                ["requestType": "PASSWORD_RESET", "email": "ada@example.com"])
            #expect(legacy.string("email") == "ada@example.com")
            let code = try #require(try await client.oobCodes().first?["oobCode"] as? String)
            let check = try await client.post("/www.googleapis.com/identitytoolkit/v3/relyingparty/resetPassword?key=k", ["oobCode": code])
            #expect(check.string("requestType") == "PASSWORD_RESET")
            #expect(try await client.post("/www.googleapis.com/identitytoolkit/v3/relyingparty/nope?key=k", [:]).status == .notFound)
            #expect(try await client.call("accounts:nope", [:]).status == .notFound)
        }
    }

    @Test("accounts survive a restart, and tokens signed before it stay valid")
    func restart() async throws {
        let harness = BackendHarness()
        let user = try await harness.run { client in try await client.signUp("ada@example.com", password: "persisted-1") }
        try await harness.run { client in
            let signIn = try await client.call("accounts:signInWithPassword", ["email": "ada@example.com", "password": "persisted-1"])
            #expect(signIn.status == .ok)
            let lookup = try await client.call("accounts:lookup", ["idToken": user.string("idToken")!])
            #expect(lookup.status == .ok)
        }
    }
}
