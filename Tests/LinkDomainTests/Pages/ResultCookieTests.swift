import Foundation
import HTTPTypes
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Back, reload and the link opened again after a success show the success")
struct ResultCookieTests {
    @Test("the form's success leaves a signed cookie; the spent link's page then leads to the result, in that browser only")
    func spentLinkInTheSameBrowser() async throws {
        try await BackendHarness().run { client in
            _ = try await client.signUp("ada@example.com")
            let link = try await ActionPagesTests.mailedLink(client, "VERIFY_EMAIL", email: "ada@example.com")
            let page = try await client.page(ActionPagesTests.path(link))
            let posted = try await client.post(page)
            let location = try #require(posted.headers[.location])
            let setCookie = try #require(posted.headers[.setCookie])
            #expect(setCookie.hasPrefix("linkdomain_done=") && setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Lax"))
            #expect(setCookie.contains("Secure"))  // the public base URL is https
            let cookie = String(try #require(setCookie.split(separator: ";").first))

            // Back to the form (or the mail's link again) in this browser: the result, not "already used".
            let back = try await client.page(ActionPagesTests.path(link), headers: [.cookie: "other=1; " + cookie])
            #expect(back.status == .seeOther && back.headers[.location] == location)
            // Another browser, or this cookie with another code, or a tampered one: the honest error.
            #expect(try await client.page(ActionPagesTests.path(link)).title == "This link has already been used or is not valid")
            let other = try await client.page("/__/auth/action?mode=verifyEmail&oobCode=someone-else&apiKey=k", headers: [.cookie: cookie])
            #expect(other.status == .badRequest)
            let tampered = cookie.replacingOccurrences(of: "=", with: "=L19h")  // another location in front of the same MAC
            #expect(try await client.page(ActionPagesTests.path(link), headers: [.cookie: tampered]).status == .badRequest)
        }
    }

    @Test("a finished action without a continue URL still leads on: the app on Android, branding.homeURL elsewhere")
    func doneWithoutContinueURL() async throws {
        try await BackendHarness(adjust: { $0.branding.homeURL = "https://app.example.com/" }).run { client in
            _ = try await client.signUp("ada@example.com")
            let link = try await ActionPagesTests.mailedLink(client, "VERIFY_EMAIL", email: "ada@example.com")
            let location = try #require(try await client.post(try await client.page(ActionPagesTests.path(link))).headers[.location])
            let desktop = try await client.page(location)
            #expect(desktop.href("button") == "https://app.example.com/" && desktop.html.contains(">Back to app.example.com</a>"))
            let android = try await client.page(location, agent: UserAgents.android)
            #expect(android.href("button")?.hasPrefix("intent://links.example.com/#Intent;scheme=https;package=com.example.app;") == true)
            #expect(android.html.contains(">Open the links.example.com app</a>"))
        }
    }
}
