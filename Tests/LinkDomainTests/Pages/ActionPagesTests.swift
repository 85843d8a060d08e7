import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import LinkDomain
@testable import LinkDomainCore
import LinkDomainExercises
@testable import LinkDomainStorage
import Logging
import Testing

/// The pages, driven over loopback against the embedded backend, checking the backend's state
/// before and after.
@Suite("Action pages")
struct ActionPagesTests {
    /// The path and query of a mailed link (the harness's public base URL is https://links.example.com).
    static func path(_ link: String) -> String {
        String(link.dropFirst("https://links.example.com".count))
    }

    static func mailedLink(_ client: BackendClient, _ type: String, email: String, extra: [String: Any] = [:]) async throws -> String {
        var body: [String: Any] = ["requestType": type, "email": email, "returnOobLink": true]
        body.merge(extra) { $1 }
        let answer = try await client.admin("accounts:sendOobCode", body)
        return try #require(answer.string("oobLink"), "\(answer.json)")
    }

    @Test("reset password on the web: the page shows the account, the form spends the code, the password changes")
    func resetPassword() async throws {
        try await BackendHarness().run { client in
            _ = try await client.signUp("ada@example.com", password: "old-password")
            let link = try await Self.mailedLink(
                client, "PASSWORD_RESET", email: "ada@example.com",
                extra: ["continueUrl": "https://app.example.com/after?a=1&b=2"])
            let page = try await client.page(Self.path(link))
            #expect(page.status == .ok)
            #expect(page.title == "Choose a new password")
            #expect(page.html.contains("ada@example.com"))
            #expect(page.headers[.cacheControl] == "no-store")
            #expect(page.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
            // The pages' own script file and nothing else: no inline script, nothing from elsewhere.
            #expect(page.headers[.contentSecurityPolicy]?.contains("script-src 'self';") == true)
            #expect(page.headers[.referrerPolicy] == "no-referrer")
            #expect(page.headers[.xContentTypeOptions] == "nosniff")
            #expect(page.html.components(separatedBy: "<script").count == 2 && page.html.contains("<script src=\"/__/static/page.js\" defer></script>"))
            // The browser refuses a short or missing password itself, keeping what was typed; the show
            // button and the mismatch check come with the script, and the page works without it.
            #expect(page.html.contains("minlength=\"6\" required") && !page.html.contains("novalidate"))
            #expect(page.html.contains("data-reveal") && page.html.contains(" hidden>Show passwords</button>"))

            // A refusal is Post/Redirect/Get: 303 to the form in this browser, saying why; no password in the page or the URL.
            let mismatchAnswer = try await client.post(page, ["newPassword": "new-password", "confirmPassword": "other-password"])
            #expect(mismatchAnswer.status == .seeOther)
            let location = try #require(mismatchAnswer.headers[.location])
            #expect(location.hasPrefix("/__/auth/action?") && location.hasSuffix("&web=1&refused=differ") && !location.contains("password="))
            let mismatch = try await client.followed(mismatchAnswer)
            #expect(mismatch.status == .ok)
            #expect(mismatch.html.contains("The two passwords are not the same."))
            #expect(!mismatch.html.contains("new-password\"") || !mismatch.html.contains("value=\"new-password"))
            // The refused fields say so to assistive technology, and password managers learn whose password this is.
            #expect(mismatch.html.contains("aria-invalid=\"true\"") && mismatch.html.contains("aria-describedby=\"password-hint form-error\""))
            #expect(page.html.contains("<input type=\"email\" name=\"username\" value=\"ada@example.com\" autocomplete=\"username\" readonly hidden>"))
            #expect(!page.html.contains("aria-invalid"))
            let weakAnswer = try await client.post(page, ["newPassword": "short", "confirmPassword": "short"])
            #expect(weakAnswer.headers[.location]?.hasSuffix("&refused=weak") == true)
            let weak = try await client.followed(weakAnswer)
            #expect(weak.status == .ok)
            #expect(weak.html.contains("too weak"))
            #expect(try await client.followed(try await client.post(page, [:])).html.contains("Type a new password."))
            #expect(try await client.oobCodes().count == 1)  // nothing spent by the failed attempts

            let done = try await client.submit(page, ["newPassword": "new-password", "confirmPassword": "new-password"])
            #expect(done.status == .ok)
            #expect(done.title == "Your password has been changed")
            #expect(done.href("button") == "https://app.example.com/after?a=1&b=2")
            #expect(try await client.oobCodes().isEmpty)
            #expect(try await client.call("accounts:signInWithPassword", ["email": "ada@example.com", "password": "new-password"]).status == .ok)

            let again = try await client.submit(page, ["newPassword": "third-password", "confirmPassword": "third-password"])
            #expect(again.status == .badRequest)
            #expect(again.title == "This link has already been used or is not valid")
        }
    }

    @Test("verify email on the web: a button, then the email is verified; both link shapes")
    func verifyEmail() async throws {
        try await BackendHarness().run { client in
            let user = try await client.signUp("ada@example.com")
            for shape in ["bare", "wrapped"] {
                var extra: [String: Any] = [:]
                if shape == "wrapped" { extra = ["iOSBundleId": "com.example.app", "canHandleCodeInApp": true] }
                _ = try await client.admin("accounts:update", ["localId": user.string("localId")!, "emailVerified": false])
                let link = try await Self.mailedLink(client, "VERIFY_EMAIL", email: "ada@example.com", extra: extra)
                #expect(link.contains("/__/auth/links?link=") == (shape == "wrapped"))
                let page = try await client.page(Self.path(link))
                #expect(page.title == "Verify your email address")
                #expect(page.html.contains("Verify my email address"))
                let lookupBefore = try await client.admin("accounts:lookup", ["localId": [user.string("localId")!]])
                #expect((lookupBefore["users"] as? [[String: Any]])?.first?["emailVerified"] as? Bool == false)
                let done = try await client.submit(page)
                #expect(done.title == "Your email address has been verified")
                let lookupAfter = try await client.admin("accounts:lookup", ["localId": [user.string("localId")!]])
                #expect((lookupAfter["users"] as? [[String: Any]])?.first?["emailVerified"] as? Bool == true)
            }
        }
    }

    @Test("change and recover email: each page says what will happen, the POST applies it")
    func changeAndRecoverEmail() async throws {
        try await BackendHarness().run { client in
            let user = try await client.signUp("old@example.com")
            let link = try await Self.mailedLink(client, "VERIFY_AND_CHANGE_EMAIL", email: "old@example.com", extra: ["newEmail": "new@example.com"])
            let page = try await client.page(Self.path(link))
            #expect(page.title == "Confirm your new email address")
            #expect(page.html.contains("old@example.com") && page.html.contains("new@example.com"))
            #expect(try await client.submit(page).title == "Your email address has been changed")
            let recover = try #require(try await client.oobCodes().first { $0["requestType"] as? String == "RECOVER_EMAIL" })
            let recoverPage = try await client.page(Self.path(recover["oobLink"] as! String))
            #expect(recoverPage.title == "Restore your email address")
            let restored = try await client.submit(recoverPage)
            #expect(restored.title == "Your email address has been restored")
            #expect(restored.html.contains("Your account uses old@example.com again."))  // the page names what it restored
            // "Send me a link to change my password" names the address it went to: the page restored it, so it has an account.
            let reset = try await client.postForm(RoutePaths.resetRequest, restored.hiddenFields)
            #expect(reset.title == "Check your email" && reset.html.contains("is on its way to old@example.com"))
            let lookup = try await client.admin("accounts:lookup", ["localId": [user.string("localId")!]])
            #expect((lookup["users"] as? [[String: Any]])?.first?["email"] as? String == "old@example.com")
        }
    }

    @Test("revertSecondFactorAddition: the embedded backend has no second factors, so the code is refused in words")
    func revertSecondFactor() async throws {
        try await BackendHarness().run { client in
            let page = try await client.page("/__/auth/action?mode=revertSecondFactorAddition&oobCode=unknown&apiKey=k")
            #expect(page.status == .badRequest)
            #expect(page.title == "This link has already been used or is not valid")
        }
    }

    @Test("sign-in on the web: 303 to the continue URL with the code added and its own query intact; nothing spent")
    func signInRedirect() async throws {
        try await BackendHarness().run { client in
            let link = try await Self.mailedLink(
                client, "EMAIL_SIGNIN", email: "ada@example.com",
                extra: ["continueUrl": "https://app.example.com/finish?a=1&b=2", "canHandleCodeInApp": true])
            let code = try #require(try await client.oobCodes().first?["oobCode"] as? String)
            let page = try await client.page(Self.path(link))
            #expect(page.status == .seeOther)
            #expect(page.headers[.location] == "https://app.example.com/finish?a=1&b=2&apiKey=demo-api-key&oobCode=\(code)&mode=signIn&lang=en")
            #expect(try await client.oobCodes().count == 1)
        }
    }

    @Test("sign-in without a usable continue URL: instructions, or a refusal for an untrusted one")
    func signInWithoutContinue() async throws {
        try await BackendHarness().run { client in
            let missing = try await client.page("/__/auth/action?mode=signIn&oobCode=C&apiKey=K")
            #expect(missing.status == .ok)
            #expect(missing.title == "Finish signing in")
            let evil = try await client.page("/__/auth/action?mode=signIn&oobCode=C&apiKey=K&continueUrl=https%3A%2F%2Fevil.example.net%2F")
            #expect(evil.status == .badRequest)
            #expect(evil.title == "This link points somewhere we do not trust")
            #expect(evil.headers[.location] == nil)
            #expect(!evil.html.contains("evil.example.net"))
        }
    }

    @Test("phones with the app configured get a landing page: for a reset, Continue first and the app second")
    func landingPages() async throws {
        try await BackendHarness().run { client in
            _ = try await client.signUp("ada@example.com")
            let link = try await Self.mailedLink(
                client, "PASSWORD_RESET", email: "ada@example.com",
                extra: ["iOSBundleId": "com.example.app", "androidPackageName": "com.example.app"])
            let path = Self.path(link)
            let iPhone = try await client.page(path, agent: UserAgents.iPhone)
            #expect(iPhone.title == "Reset your links.example.com password")
            #expect(iPhone.html.contains("<title>Reset your links.example.com password – links.example.com</title>"))
            // Safari's Smart App Banner: an Open button for the app, handed this link.
            #expect(
                iPhone.html.contains(
                    "<meta name=\"apple-itunes-app\" content=\"app-id=1234567890, app-argument=https://links.example.com\(path.replacingOccurrences(of: "&", with: "&amp;"))\">"
                ))
            // A reset finishes in the browser: "Continue" is the primary button, the app second, the store last.
            #expect(iPhone.html.contains("Choose a new password for your links.example.com account here in this browser"))
            #expect(iPhone.href("button") == "\(path)&web=1")
            #expect(iPhone.href("button secondary") == "https://open.example.com\(path)")
            #expect(iPhone.href("link") == "https://apps.apple.com/app/id1234567890")
            #expect(!iPhone.html.contains("works best in the app") && !iPhone.html.contains("press and hold"))
            let android = try await client.page(path, agent: UserAgents.android)
            #expect(android.href("button") == "\(path)&web=1")
            let intent = try #require(android.href("button secondary"))
            #expect(intent.hasPrefix("intent://links.example.com\(path)#Intent;scheme=https;package=com.example.app;"))
            #expect(
                intent.contains("S.browser_fallback_url=https%3A%2F%2Fplay.google.com%2Fstore%2Fapps%2Fdetails%3Fid%3Dcom.example.app%26referrer%3Dldh.")
                    && intent.hasSuffix(";end"))
            // Google Play's referrer carries the link across the install, sealed; the iPhone's store link copies a hand-off URL first.
            let play = try #require(android.href("link"))
            #expect(play.hasPrefix("https://play.google.com/store/apps/details?id=com.example.app&referrer=ldh."))
            #expect(iPhone.html.contains("data-copy-then=\"https://links.example.com/__/handoff/") && iPhone.html.contains("Copy the link and get the app"))
            // The store links never carry the code.
            let code = try #require(try await client.oobCodes().first?["oobCode"] as? String)
            #expect(!(iPhone.href("link") ?? "").contains(code))
            let web = try await client.page("\(path)&web=1", agent: UserAgents.iPhone)
            #expect(web.title == "Choose a new password")
        }
    }

    @Test("a sign-in link meant for the app puts the app first; on the pivot host the page says the app may not be installed, and never offers it again")
    func signInLandingAndPivot() async throws {
        try await BackendHarness().run { client in
            _ = try await client.signUp("ada@example.com")
            let link = try await Self.mailedLink(
                client, "EMAIL_SIGNIN", email: "ada@example.com",
                extra: ["iOSBundleId": "com.example.app", "continueUrl": "https://app.example.com/done"])
            let path = Self.path(link)
            let iPhone = try await client.page(path, agent: UserAgents.iPhone)
            #expect(iPhone.href("button") == "https://open.example.com\(path)")
            #expect(iPhone.href("button secondary") == "https://apps.apple.com/app/id1234567890")
            #expect(iPhone.href("link") == "\(path)&web=1")
        }
    }

    @Test(
        "on the pivot host (a tap the app did not take) the page says the app may not be installed, and never offers it again",
        arguments: ["open.example.com", "OPEN.example.com:443"])
    func pivotHost(host: String) async throws {
        let harness = BackendHarness()
        let services = try await LinkDomainServices.make(configuration: harness.configuration, logger: Logger(label: "test"))
        // The links' codes, live: the landing comes after their check.
        try await Fixtures.insertCode("C", type: .emailSignIn, into: services)
        try await Fixtures.insertCode("R", type: .passwordReset, into: services)
        func page(_ query: String, host: String?) throws -> String {
            let answer = services.immediate.answer(
                to: .link, method: .get, path: "/__/auth/action", query: Substring(query),
                headers: .init(userAgent: UserAgents.iPhone, host: host), peer: { "192.0.2.7" }, logger: Logger(label: "test"))
            return try #require(answer?.response.body.map { String(buffer: $0) })
        }
        let signIn = "apiKey=k&mode=signIn&oobCode=C&continueUrl=https%3A%2F%2Fapp.example.com%2Fdone&ibi=com.example.app"
        #expect(try page(signIn, host: "links.example.com").contains("https://open.example.com/__/auth/action?"))
        let pivot = try page(signIn, host: host)
        #expect(pivot.contains("App not installed?") && !pivot.contains("https://open.example.com/"))
        #expect(pivot.contains("/__/auth/action?\(signIn.replacingOccurrences(of: "&", with: "&amp;"))&amp;web=1"))
        let reset = try page("apiKey=k&mode=resetPassword&oobCode=R&ibi=com.example.app", host: host)
        #expect(reset.contains("App not installed?") && !reset.contains("https://open.example.com/") && reset.contains("web=1"))
    }

    @Test(
        "in an app's own browser: that app's way to Safari or Chrome and the page's https address, never Safari's press-and-hold or intent://",
        arguments: [
            ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 GmailApp/6.0", "Gmail", "Safari"),
            ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148", "an app", "Safari"),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) GSA/315.0 Mobile/15E148 Safari/604.1",
                "the Google app", "Safari"
            ),
            (
                "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/125.0 Mobile Safari/537.36",
                "an app", "Chrome"
            ),
        ])
    func inAppBrowsers(agent: String, source: String, browser: String) async throws {
        try await BackendHarness().run { client in
            _ = try await client.signUp("ada@example.com")
            let link = try await Self.mailedLink(
                client, "PASSWORD_RESET", email: "ada@example.com",
                extra: ["iOSBundleId": "com.example.app", "androidPackageName": "com.example.app"])
            let page = try await client.page(Self.path(link), agent: agent)
            #expect(page.html.contains(source) && page.html.contains("“Open in \(browser)”"))
            #expect(!page.html.contains("press and hold") && !page.html.contains("intent://"))
            // "Copy link" first (shown by the script), the address itself behind a disclosure and never a
            // link (a tap would reload the page in the same app's browser), where to paste it once copied.
            let address = "https://links.example.com\(Self.path(link).replacingOccurrences(of: "&", with: "&amp;"))"
            #expect(page.html.contains("data-copy=\"\(address)\"") && page.html.contains(" hidden>Copy link</button>"))
            #expect(page.html.contains("<summary>Show the link</summary><input type=\"text\" readonly value=\"\(address)\""))
            #expect(!page.html.contains("href=\"\(address)\"") && page.html.contains("Open \(browser) and paste the link"))
            // A reset finishes in this browser too: "Continue" stays first, the way to the app after it.
            let copy = try #require(page.html.range(of: "Copy link")), proceed = try #require(page.html.range(of: ">Continue</a>"))
            #expect(proceed.lowerBound < copy.lowerBound)
            #expect(page.href("button") == "\(Self.path(link))&web=1")  // finishing in this browser stays the first step
        }
    }

    @Test("a legacy Dynamic Link on the old domain's root path reaches the same pages")
    func legacyDynamicLink() async throws {
        try await BackendHarness().run { client in
            _ = try await client.signUp("ada@example.com")
            let link = try await Self.mailedLink(client, "PASSWORD_RESET", email: "ada@example.com")
            let fdl = "/?link=\(ActionLinkEncoder.percentEncode(link))&apn=com.example.app&ibi=com.example.app&efr=1"
            #expect(try await client.page(fdl).title == "Choose a new password")
            #expect(try await client.page(fdl, agent: UserAgents.iPhone).title == "Reset your links.example.com password")
            #expect(try await client.page("/some/old/path?link=\(ActionLinkEncoder.percentEncode(link))").title == "Choose a new password")
            #expect(try await client.page("/some/old/path").status == .notFound)
        }
    }

    @Test("scanners: fetching every link twice with HEAD and GET, as a scanner, a desktop and a phone, leaves every code usable")
    func scannerSafety() async throws {
        try await BackendHarness().run { client in
            _ = try await client.signUp("ada@example.com")
            var links: [String] = []
            links.append(try await Self.mailedLink(client, "PASSWORD_RESET", email: "ada@example.com"))
            links.append(try await Self.mailedLink(client, "VERIFY_EMAIL", email: "ada@example.com", extra: ["canHandleCodeInApp": true]))
            links.append(try await Self.mailedLink(client, "EMAIL_SIGNIN", email: "ada@example.com", extra: ["continueUrl": "https://app.example.com/"]))
            links.append(try await Self.mailedLink(client, "VERIFY_AND_CHANGE_EMAIL", email: "ada@example.com", extra: ["newEmail": "b@example.com"]))
            let before = try await client.oobCodes().count
            for link in links {
                for agent in [UserAgents.scanner, UserAgents.desktop, UserAgents.iPhone, UserAgents.android] {
                    for method in [HTTPRequest.Method.head, .get, .head, .get] {
                        let page = try await client.page(Self.path(link), agent: agent, method: method)
                        #expect(page.status.code < 500)
                    }
                }
            }
            #expect(try await client.oobCodes().count == before)
            // And each is still usable.
            let reset = try await client.page(Self.path(links[0]))
            #expect(try await client.submit(reset, ["newPassword": "new-password", "confirmPassword": "new-password"]).status == .ok)
            let verify = try await client.page(Self.path(links[1]) + "&web=1")
            #expect(try await client.submit(verify).status == .ok)
            let signInCode = try #require(try await client.oobCodes().first { $0["requestType"] as? String == "EMAIL_SIGNIN" }?["oobCode"] as? String)
            #expect(try await client.call("accounts:signInWithEmailLink", ["email": "ada@example.com", "oobCode": signInCode]).status == .ok)
        }
    }

    @Test("a scanner gets a neutral page and the backend is not asked")
    func scannerPage() async throws {
        try await BackendHarness().run { client in
            let page = try await client.page("/__/auth/action?mode=resetPassword&oobCode=whatever&apiKey=k", agent: UserAgents.scanner)
            #expect(page.status == .ok)
            #expect(page.title == "Open this link in your browser")
            #expect(!page.html.contains("<form"))
        }
    }

    @Test("forms are refused from another site, with another code's token, or with a forged token")
    func formProtection() async throws {
        try await BackendHarness().run { client in
            _ = try await client.signUp("ada@example.com")
            let first = try await client.page(Self.path(try await Self.mailedLink(client, "VERIFY_EMAIL", email: "ada@example.com")))
            let second = try await client.page(Self.path(try await Self.mailedLink(client, "VERIFY_EMAIL", email: "ada@example.com")))
            #expect(try await client.submit(first, site: "cross-site").status == .forbidden)
            #expect(try await client.submit(first, site: "same-site").status == .forbidden)
            #expect(try await client.submit(first, ["form": second.hiddenFields["form"]!]).status == .forbidden)
            #expect(try await client.submit(first, ["form": "1.AAAA"]).status == .forbidden)
            #expect(try await client.oobCodes().count == 2)
            #expect(try await client.submit(first).status == .ok)
        }
    }

    @Test("a link opened twice: both tabs' forms work until the first spends the code; the other then says so")
    func twoTabs() async throws {
        try await BackendHarness().run { client in
            _ = try await client.signUp("ada@example.com")
            let path = Self.path(try await Self.mailedLink(client, "PASSWORD_RESET", email: "ada@example.com"))
            let first = try await client.page(path)
            let second = try await client.page(path)
            #expect(first.status == .ok && second.status == .ok)
            let done = try await client.submit(first, ["newPassword": "new password 1", "confirmPassword": "new password 1"])
            #expect(done.status == .ok && done.title == "Your password has been changed")
            let late = try await client.submit(second, ["newPassword": "new password 2", "confirmPassword": "new password 2"])
            #expect(late.title != "This page has expired" && late.status == .badRequest)
        }
    }

    @Test("Post/Redirect/Get: success is a 303 to a signed result page that reloads as success; a forged one is refused")
    func postRedirectGet() async throws {
        try await BackendHarness().run { client in
            _ = try await client.signUp("ada@example.com")
            let page = try await client.page(Self.path(try await Self.mailedLink(client, "PASSWORD_RESET", email: "ada@example.com")))
            let posted = try await client.post(page, ["newPassword": "new password 1", "confirmPassword": "new password 1", "lang": "it"])
            #expect(posted.status == .seeOther)
            let location = try #require(posted.headers[.location])
            #expect(location.hasPrefix("/__/auth/done?mode=resetPassword&lang=it&"))
            for _ in 0..<2 {  // the result, and a reload of it
                let result = try await client.page(location)
                #expect(result.status == .ok && result.title == "La tua password è stata cambiata")
            }
            let forged = location.replacingOccurrences(of: "mode=resetPassword", with: "mode=verifyEmail")
            #expect(try await client.page(forged).status == .badRequest)
        }
    }

    @Test("every backend error has its own page: expired, used, invalid, disabled, deleted")
    func errorPages() async throws {
        let harness = BackendHarness()
        try await harness.run { client in
            let user = try await client.signUp("ada@example.com")
            let expired = try await Self.mailedLink(client, "PASSWORD_RESET", email: "ada@example.com")
            harness.clock.advance(seconds: 3601)
            let expiredPage = try await client.page(Self.path(expired))
            #expect(expiredPage.status == .gone)
            #expect(expiredPage.title == "This link has expired")
            let invalid = try await client.page("/__/auth/action?mode=verifyEmail&oobCode=not-a-code&apiKey=k")
            #expect(invalid.status == .badRequest && invalid.title == "This link has already been used or is not valid")
            #expect(invalid.href("button") == nil)  // no continue URL: nowhere to go back to
            #expect(invalid.html.contains("<p class=\"purpose\">Verify your email address for links.example.com</p>"))  // what the link was for
            // With an allowed continue URL an error page is no dead end; a refused one offers nothing.
            let back = try await client.page("/__/auth/action?mode=verifyEmail&oobCode=not-a-code&apiKey=k&continueUrl=https%3A%2F%2Fapp.example.com%2Fhome")
            #expect(back.href("button secondary") == "https://app.example.com/home" && back.html.contains(">Back to app.example.com</a>"))
            let elsewhere = try await client.page("/__/auth/action?mode=verifyEmail&oobCode=not-a-code&apiKey=k&continueUrl=https%3A%2F%2Fevil.example.net%2F")
            #expect(elsewhere.href("button") == nil)
            let disabledLink = try await Self.mailedLink(client, "VERIFY_EMAIL", email: "ada@example.com")
            _ = try await client.admin("accounts:update", ["localId": user.string("localId")!, "disableUser": true])
            let disabledPage = try await client.page(Self.path(disabledLink))
            #expect(disabledPage.status == .ok)  // checking a code does not look at the account
            let disabledSubmit = try await client.submit(disabledPage)
            #expect(disabledSubmit.status == .forbidden && disabledSubmit.title == "This account is disabled")
            _ = try await client.admin("accounts:delete", ["localId": user.string("localId")!])
            let deleted = try await client.submit(disabledPage)
            #expect(deleted.status == .notFound && deleted.title == "This account no longer exists")
            let notALink = try await client.page("/__/auth/links?link=https%3A%2F%2Fexample.com%2F")
            #expect(notALink.status == .badRequest && notALink.title == "This is not a complete link")
            #expect(try await client.page("/__/auth/action?mode=dance&oobCode=x").status == .badRequest)
        }
    }

    @Test("pages follow lang, with English for anything else")
    func languages() async throws {
        try await BackendHarness().run { client in
            let expected = [
                "en": "Finish signing in", "ru": "Завершите вход", "vi": "Hoàn tất đăng nhập", "it": "Completa l'accesso",
                "pt": "Conclua o login", "tr": "Oturum açmayı tamamlayın", "pt-BR": "Conclua o login", "xx": "Finish signing in",
                "pt-PT": "Conclua o início de sessão", "pt_pt": "Conclua o início de sessão",
            ]
            // Right to left for Arabic, Persian and Hebrew.
            for language in ["ar", "fa", "he", "iw"] {
                let page = try await client.page("/__/auth/action?mode=signIn&oobCode=C&apiKey=K&lang=\(language)")
                #expect(page.html.contains("<html lang=\"\(Languages.language(for: language, otherwise: "en"))\" dir=\"rtl\">"), "\(language)")
            }
            for (language, title) in expected {
                let page = try await client.page("/__/auth/action?mode=signIn&oobCode=C&apiKey=K&lang=\(language)")
                #expect(page.title.map(Page.unescape) == title, "\(language)")
                #expect(page.html.contains("<html lang=\"\(Languages.language(for: language, otherwise: "en"))\" dir=\"ltr\">"))
            }
        }
    }

    @Test(
        "no page carries a parameter unescaped", arguments: ["<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "javascript:alert(1)", "'quoted'"])
    func escaping(payload: String) async throws {
        try await BackendHarness().run { client in
            let encoded = ActionLinkEncoder.percentEncode(payload)
            let paths = [
                "/__/auth/action?mode=signIn&oobCode=\(encoded)&apiKey=\(encoded)&lang=\(encoded)&continueUrl=\(encoded)&tenantId=\(encoded)",
                "/__/auth/action?mode=resetPassword&oobCode=\(encoded)&apiKey=\(encoded)&lang=\(encoded)&continueUrl=\(encoded)",
                "/__/auth/links?link=\(encoded)",
                "/?link=\(ActionLinkEncoder.percentEncode("https://x.example.com/__/auth/action?mode=verifyEmail&oobCode=\(encoded)&continueUrl=\(encoded)"))&ifl=\(encoded)&st=\(encoded)",
            ]
            for path in paths {
                for agent in [UserAgents.desktop, UserAgents.iPhone, UserAgents.android, UserAgents.scanner] {
                    let page = try await client.page(path, agent: agent)
                    // A payload with HTML's special characters must never appear as written; one without
                    // them (javascript:) may appear as text, but never as a link or image address.
                    if payload.contains(where: { "<>\"'&".contains($0) }) { #expect(!page.html.contains(payload), "\(path) \(agent)") }
                    for attribute in ["href=\"javascript:", "src=\"javascript:", "og:image\" content=\"javascript:"] {
                        #expect(!page.html.lowercased().contains(attribute), "\(path)")
                    }
                    if let location = page.headers[.location] { #expect(location.hasPrefix("https://app.example.com/")) }
                }
            }
        }
    }

    @Test("the stylesheet is served; nothing else is loaded, nothing third-party")
    func assets() async throws {
        try await BackendHarness().run { client in
            let css = try await client.page("/__/static/styles.css")
            #expect(css.status == .ok && css.headers[.contentType] == "text/css; charset=utf-8")
            let page = try await client.page("/__/auth/action?mode=signIn&oobCode=C&apiKey=K")
            #expect(!page.html.contains("http://") && !page.html.contains("https://"))
        }
    }
}
