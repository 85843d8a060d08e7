import Foundation
import HTTPTypes
import HummingbirdTesting
@testable import LinkDomain
@testable import LinkDomainCore
import LinkDomainExercises
@testable import LinkDomainStorage
import Testing

@Suite("Embedded backend: out-of-band codes over HTTP")
struct OobCodeTests {
    @Test("a password-reset link has the action-URL shape, and checking the code does not spend it")
    func passwordReset() async throws {
        let harness = BackendHarness()
        try await harness.run { client in
            let user = try await client.signUp("ada@example.com", password: "old-password")
            harness.clock.advance(seconds: 1)
            let answer = try await client.admin(
                "accounts:sendOobCode",
                [
                    "requestType": "PASSWORD_RESET", "email": "ada@example.com",
                    "returnOobLink": true, "continueUrl": "https://app.example.com/after?a=1&b=2",
                ])
            let code = try #require(answer.string("oobCode"))
            #expect(code.count >= 22)  // >= 128 bits of base64url
            let link = try #require(answer.string("oobLink"))
            #expect(
                link == "https://links.example.com/__/auth/action?apiKey=demo-api-key&mode=resetPassword&oobCode=\(code)"
                    + "&continueUrl=https%3A%2F%2Fapp.example.com%2Fafter%3Fa%3D1%26b%3D2&lang=en")
            for _ in 0..<2 {
                let check = try await client.call("accounts:resetPassword", ["oobCode": code])
                #expect(check.string("email") == "ada@example.com")
                #expect(check.string("requestType") == "PASSWORD_RESET")
            }
            #expect(
                try await client.call("accounts:resetPassword", ["oobCode": code, "newPassword": "short"]).errorMessage
                    == "WEAK_PASSWORD : Password should be at least 6 characters")
            let reset = try await client.call("accounts:resetPassword", ["oobCode": code, "newPassword": "new-password"])
            #expect(reset.status == .ok)
            #expect(reset.string("email") == "ada@example.com")
            #expect(try await client.call("accounts:resetPassword", ["oobCode": code, "newPassword": "newer-password"]).errorMessage == "INVALID_OOB_CODE")
            #expect(try await client.call("accounts:signInWithPassword", ["email": "ada@example.com", "password": "new-password"]).status == .ok)
            // The reset ended the sessions that began before it.
            let refresh = try await client.post(
                "/securetoken.googleapis.com/v1/token?key=k",
                ["grant_type": "refresh_token", "refresh_token": user.string("refreshToken")!])
            #expect(refresh.errorMessage == "TOKEN_EXPIRED")
        }
    }

    @Test("sendOobCode validation errors, exactly as Identity Toolkit spells them")
    func sendOobCodeErrors() async throws {
        try await BackendHarness().run { client in
            _ = try await client.signUp("ada@example.com")
            let cases: [([String: Any], String)] = [
                (["email": "ada@example.com"], "MISSING_REQ_TYPE"),
                (["requestType": "PASSWORD_RESET"], "MISSING_EMAIL"),
                (["requestType": "PASSWORD_RESET", "email": "nope"], "INVALID_EMAIL"),
                (
                    ["requestType": "PASSWORD_RESET", "email": "ada@example.com", "continueUrl": "https://evil.example.net/"],
                    "UNAUTHORIZED_DOMAIN : Domain not allowlisted by project"
                ),
                (["requestType": "PASSWORD_RESET", "email": "ada@example.com", "continueUrl": "javascript:alert(1)"], "INVALID_CONTINUE_URI"),
                (["requestType": "PASSWORD_RESET", "email": "ada@example.com", "continueUrl": "https://user@app.example.com/"], "INVALID_CONTINUE_URI"),
                (["requestType": "PASSWORD_RESET", "email": "ada@example.com", "iOSAppStoreId": "123"], "MISSING_IOS_BUNDLE_ID"),
                (["requestType": "PASSWORD_RESET", "email": "ada@example.com", "androidInstallApp": true], "MISSING_ANDROID_PACKAGE_NAME"),
                (["requestType": "PASSWORD_RESET", "email": "ada@example.com", "androidMinimumVersion": "12"], "MISSING_ANDROID_PACKAGE_NAME"),
                (["requestType": "PASSWORD_RESET", "email": "ada@example.com", "androidMinimumVersionCode": "12"], "MISSING_ANDROID_PACKAGE_NAME"),
                (
                    ["requestType": "PASSWORD_RESET", "email": "ada@example.com", "linkDomain": "other.example.com"],
                    "INVALID_HOSTING_LINK_DOMAIN : The provided hosting link domain is not configured in Firebase Hosting or is not owned by the "
                        + "current project. This cannot be a default hosting domain (web.app or firebaseapp.com)."
                ),
                (["requestType": "EMAIL_SIGNIN", "email": "ada@example.com", "canHandleCodeInApp": true], "MISSING_CONTINUE_URI"),
                (["requestType": "VERIFY_EMAIL"], "MISSING_ID_TOKEN"),
                (["requestType": "PASSWORD_RESET", "email": "ada@example.com", "returnOobLink": true], "INSUFFICIENT_PERMISSION"),
            ]
            for (body, message) in cases {
                #expect(try await client.call("accounts:sendOobCode", body).errorMessage == message, "\(body)")
            }
            #expect(
                try await client.admin("accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "x@example.com", "returnOobLink": true])
                    .errorMessage == "EMAIL_NOT_FOUND")
            #expect(try await client.oobCodes().isEmpty)
        }
    }

    @Test("under enumeration protection a reset for an unknown address answers like any other and sends nothing")
    func unknownAddressReset() async throws {
        try await BackendHarness().run { client in
            let answer = try await client.call("accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "nobody@example.com"])
            #expect(answer.status == .ok)
            #expect(answer.string("email") == "nobody@example.com")
            #expect(try await client.oobCodes().isEmpty)
        }
        try await BackendHarness(emailEnumerationProtection: false).run { client in
            let answer = try await client.call("accounts:sendOobCode", ["requestType": "PASSWORD_RESET", "email": "nobody@example.com"])
            #expect(answer.errorMessage == "EMAIL_NOT_FOUND")
        }
    }

    @Test("app settings wrap the link in /__/auth/links; linkDomain naming this host and both Android spellings are accepted")
    func appLinks() async throws {
        try await BackendHarness().run { client in
            _ = try await client.signUp("ada@example.com")
            let answer = try await client.admin(
                "accounts:sendOobCode",
                [
                    "requestType": "EMAIL_SIGNIN", "email": "ada@example.com", "returnOobLink": true, "canHandleCodeInApp": true,
                    "continueUrl": "https://app.example.com/finish?a=1&b=2", "iOSBundleId": "com.example.app", "iOSAppStoreId": "123",
                    "androidPackageName": "com.example.app", "androidInstallApp": true, "androidMinimumVersionCode": "12",
                    "linkDomain": "links.example.com",
                ])
            let link = try #require(answer.string("oobLink"))
            #expect(
                link.hasPrefix(
                    "https://links.example.com/__/auth/links?link=https://links.example.com/__/auth/action?apiKey%3Ddemo-api-key%26mode%3DsignIn%26oobCode%3D"))
            let parsed = try #require(ClientLinkParsers.js(link))
            #expect(parsed["continueUrl"] == "https://app.example.com/finish?a=1&b=2")
            #expect(parsed["oobCode"] == answer.string("oobCode"))
            #expect(ClientLinkParsers.ios(link)["mode"] == "signIn")
            let legacy = try await client.admin(
                "accounts:sendOobCode",
                [
                    "requestType": "PASSWORD_RESET", "email": "ada@example.com", "androidPackageName": "com.example.app",
                    "androidMinimumVersion": "12", "returnOobLink": true,
                ])
            #expect(legacy.string("oobLink")?.contains("/__/auth/links?link=") == true)
        }
    }

    @Test("verify email: an idToken asks for the code, accounts:update applies it once")
    func verifyEmail() async throws {
        try await BackendHarness().run { client in
            let user = try await client.signUp("ada@example.com")
            let sent = try await client.call("accounts:sendOobCode", ["requestType": "VERIFY_EMAIL", "idToken": user.string("idToken")!])
            #expect(sent.string("email") == "ada@example.com")
            let code = try #require(try await client.oobCodes().first?["oobCode"] as? String)
            let check = try await client.call("accounts:resetPassword", ["oobCode": code])
            #expect(check.string("requestType") == "VERIFY_EMAIL")
            let applied = try await client.call("accounts:update", ["oobCode": code])
            #expect(applied["emailVerified"] as? Bool == true)
            #expect(applied.string("email") == "ada@example.com")
            #expect(try await client.call("accounts:update", ["oobCode": code]).errorMessage == "INVALID_OOB_CODE")
        }
    }

    @Test("verify and change email: the code goes to the new address; applying it mails a recovery code to the old one")
    func verifyAndChangeEmail() async throws {
        try await BackendHarness().run { client in
            let user = try await client.signUp("old@example.com")
            _ = try await client.call(
                "accounts:sendOobCode",
                [
                    "requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": user.string("idToken")!,
                    "newEmail": "new@example.com",
                ])
            let change = try #require(try await client.oobCodes().first)
            #expect(change["email"] as? String == "new@example.com")
            let check = try await client.call("accounts:resetPassword", ["oobCode": change["oobCode"] as! String])
            #expect(check.string("email") == "old@example.com")
            #expect(check.string("newEmail") == "new@example.com")
            let applied = try await client.call("accounts:update", ["oobCode": change["oobCode"] as! String])
            #expect(applied.string("email") == "new@example.com")
            let recover = try #require(try await client.oobCodes().first { $0["requestType"] as? String == "RECOVER_EMAIL" })
            #expect(recover["email"] as? String == "old@example.com")
            #expect((recover["oobLink"] as? String)?.contains("mode=recoverEmail") == true)
            let recovered = try await client.call("accounts:update", ["oobCode": recover["oobCode"] as! String])
            #expect(recovered.string("email") == "old@example.com")
            #expect(
                try await client.call(
                    "accounts:sendOobCode",
                    [
                        "requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": user.string("idToken")!,
                        "newEmail": "old@example.com",
                    ]
                ).errorMessage == "EMAIL_EXISTS")
        }
    }

    @Test("codes expire after the configured lifetime: EXPIRED_OOB_CODE, and an expired code is never spent")
    func expiry() async throws {
        let harness = BackendHarness()
        try await harness.run { client in
            _ = try await client.signUp("ada@example.com")
            let code = try await client.code("PASSWORD_RESET", email: "ada@example.com")
            harness.clock.advance(seconds: 3599)
            #expect(try await client.call("accounts:resetPassword", ["oobCode": code]).status == .ok)
            harness.clock.advance(seconds: 1)
            #expect(try await client.call("accounts:resetPassword", ["oobCode": code]).errorMessage == "EXPIRED_OOB_CODE")
            #expect(try await client.call("accounts:resetPassword", ["oobCode": code, "newPassword": "new-password"]).errorMessage == "EXPIRED_OOB_CODE")
            #expect(try await client.call("accounts:resetPassword", ["oobCode": "made-up"]).errorMessage == "INVALID_OOB_CODE")
        }
    }

    @Test("email-link sign-in creates the account once, marks the email verified, and the code works once")
    func emailLinkSignIn() async throws {
        try await BackendHarness().run { client in
            let sent = try await client.call(
                "accounts:sendOobCode",
                [
                    "requestType": "EMAIL_SIGNIN", "email": "new@example.com",
                    "continueUrl": "https://app.example.com/finish", "canHandleCodeInApp": true,
                ])
            #expect(sent.status == .ok)
            let code = try #require(try await client.oobCodes().first?["oobCode"] as? String)
            let check = try await client.call("accounts:resetPassword", ["oobCode": code])
            #expect(check.string("requestType") == "EMAIL_SIGNIN")
            #expect(check["email"] == nil)
            #expect(
                try await client.call("accounts:signInWithEmailLink", ["email": "other@example.com", "oobCode": code]).errorMessage
                    == "INVALID_EMAIL : The email provided does not match the sign-in email address.")
            let signedIn = try await client.call("accounts:signInWithEmailLink", ["email": "New@Example.com", "oobCode": code])
            #expect(signedIn.status == .ok)
            #expect(signedIn["isNewUser"] as? Bool == true)
            #expect(signedIn.string("kind") == "identitytoolkit#EmailLinkSigninResponse")
            #expect(try await client.call("accounts:signInWithEmailLink", ["email": "new@example.com", "oobCode": code]).errorMessage == "INVALID_OOB_CODE")
            let again = try await client.code("EMAIL_SIGNIN", email: "new@example.com", extra: ["continueUrl": "https://app.example.com/finish"])
            let second = try await client.call("accounts:signInWithEmailLink", ["email": "new@example.com", "oobCode": again])
            #expect(second["isNewUser"] as? Bool == false)
            #expect(second.string("localId") == signedIn.string("localId"))
            let lookup = try await client.call("accounts:lookup", ["idToken": second.string("idToken")!])
            #expect((lookup["users"] as? [[String: Any]])?.first?["emailVerified"] as? Bool == true)
        }
    }

    @Test("email-link sign-in to an unverified account with a password removes the password and ends earlier sessions")
    func emailLinkRemovesUnverifiedPassword() async throws {
        let harness = BackendHarness()
        try await harness.run { client in
            let squatter = try await client.signUp("ada@example.com", password: "squatter-password")
            harness.clock.advance(seconds: 5)
            let code = try await client.code("EMAIL_SIGNIN", email: "ada@example.com", extra: ["continueUrl": "https://app.example.com/"])
            let owner = try await client.call("accounts:signInWithEmailLink", ["email": "ada@example.com", "oobCode": code])
            #expect(owner.string("localId") == squatter.string("localId"))
            #expect(
                try await client.call("accounts:signInWithPassword", ["email": "ada@example.com", "password": "squatter-password"]).errorMessage
                    == "INVALID_LOGIN_CREDENTIALS")
            let stale = try await client.post(
                "/securetoken.googleapis.com/v1/token?key=k",
                ["grant_type": "refresh_token", "refresh_token": squatter.string("refreshToken")!])
            #expect(stale.errorMessage == "TOKEN_EXPIRED")
            #expect(try await client.call("accounts:lookup", ["idToken": squatter.string("idToken")!]).errorMessage == "TOKEN_EXPIRED")
            #expect(try await client.call("accounts:lookup", ["idToken": owner.string("idToken")!]).status == .ok)
        }
    }

    @Test("with an idToken, email-link sign-in links the credential to the signed-in user, or re-authenticates them")
    func emailLinkLinkingAndReauthentication() async throws {
        try await BackendHarness().run { client in
            let anonymous = try await client.call("accounts:signUp", ["returnSecureToken": true])
            #expect(anonymous.status == .ok)
            let code = try await client.code("EMAIL_SIGNIN", email: "ada@example.com", extra: ["continueUrl": "https://app.example.com/"])
            let linked = try await client.call(
                "accounts:signInWithEmailLink",
                [
                    "email": "ada@example.com", "oobCode": code,
                    "idToken": anonymous.string("idToken")!,
                ])
            #expect(linked.string("localId") == anonymous.string("localId"))
            #expect(linked["isNewUser"] as? Bool == false)
            let reauth = try await client.code("EMAIL_SIGNIN", email: "ada@example.com", extra: ["continueUrl": "https://app.example.com/"])
            let again = try await client.call(
                "accounts:signInWithEmailLink",
                [
                    "email": "ada@example.com", "oobCode": reauth,
                    "idToken": linked.string("idToken")!,
                ])
            #expect(again.string("localId") == anonymous.string("localId"))
            let other = try await client.signUp("bob@example.com")
            let taken = try await client.code("EMAIL_SIGNIN", email: "ada@example.com", extra: ["continueUrl": "https://app.example.com/"])
            #expect(
                try await client.call(
                    "accounts:signInWithEmailLink",
                    [
                        "email": "ada@example.com", "oobCode": taken,
                        "idToken": other.string("idToken")!,
                    ]
                ).errorMessage == "EMAIL_EXISTS")
        }
    }

    @Test("a disabled account's codes answer USER_DISABLED and stay unspent")
    func disabledCodes() async throws {
        try await BackendHarness().run { client in
            let user = try await client.signUp("ada@example.com")
            let code = try await client.code("PASSWORD_RESET", email: "ada@example.com")
            _ = try await client.admin("accounts:update", ["localId": user.string("localId")!, "disableUser": true])
            #expect(try await client.call("accounts:resetPassword", ["oobCode": code, "newPassword": "new-password"]).errorMessage == "USER_DISABLED")
            #expect(try await client.oobCodes().count == 1)
        }
    }

    @Test("the oobCodes listing shows each generated link with its address and type")
    func listing() async throws {
        try await BackendHarness().run { client in
            _ = try await client.signUp("ada@example.com")
            let code = try await client.code("PASSWORD_RESET", email: "ada@example.com")
            let listed = try await client.oobCodes()
            #expect(listed.count == 1)
            #expect(listed.first?["oobCode"] as? String == code)
            #expect(listed.first?["email"] as? String == "ada@example.com")
            #expect(listed.first?["requestType"] as? String == "PASSWORD_RESET")
            #expect((listed.first?["oobLink"] as? String)?.contains(code) == true)
        }
    }
}

@Suite("Embedded backend under concurrent load")
struct BackendConcurrencyTests {
    @Test("200 concurrent sign-in-link completions for distinct users, and 50 concurrent attempts on one code")
    func concurrentCompletions() async throws {
        try await BackendHarness().run(setup: .ahc(.http)) { client in
            var codes: [(String, String)] = []
            for index in 0..<200 {
                let email = "user\(index)@example.com"
                codes.append((email, try await client.code("EMAIL_SIGNIN", email: email, extra: ["continueUrl": "https://app.example.com/"])))
            }
            let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for (email, code) in codes {
                    group.addTask {
                        let answer = try await client.call("accounts:signInWithEmailLink", ["email": email, "oobCode": code])
                        return (answer.status.code, answer.string("localId"))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0.0 == 200 }.count == 200)
            #expect(Set(statuses.compactMap(\.1)).count == 200)

            _ = try await client.signUp("contended@example.com")
            let shared = try await client.code("EMAIL_SIGNIN", email: "contended@example.com", extra: ["continueUrl": "https://app.example.com/"])
            let attempts = try await withThrowingTaskGroup(of: Answer.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await client.call("accounts:signInWithEmailLink", ["email": "contended@example.com", "oobCode": shared]) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(attempts.filter { $0.status == .ok }.count == 1)
            #expect(attempts.filter { $0.errorMessage == "INVALID_OOB_CODE" }.count == 49)
            #expect(attempts.allSatisfy { $0.status != .internalServerError })
        }
    }
}
