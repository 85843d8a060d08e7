import HTTPTypes
@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage
import Testing

@Suite("Pages as typed models, without HTTP")
struct PageBuilderTests {
    static let router = LinkRouter(
        appleApps: [AppleApp(teamID: "ABCDE12345", bundleID: "com.example.app", appStoreID: "123")],
        androidApps: [AndroidApp(packageName: "com.example.app", fingerprints: [])],
        policy: RedirectPolicy(authorizedDomains: ["app.example.com"]), publicHost: "links.example.com")
    static let builder = PageBuilder(router: router, pivotBaseURL: "https://open.example.com")
    static let strings = PageStrings(
        language: "en",
        table: [
            "landing_title": "Open", "get_app_play": "Play", "get_app_store": "Store",
            "continue_button": "Continue",
        ])

    @Test("the Android landing page opens the app by intent, falls back to the store, and offers the web for a reset")
    func androidLanding() throws {
        let link = ActionLink(mode: .resetPassword, oobCode: "C", apiKey: "K")
        let request = LinkRequest(path: "/__/auth/action", query: "mode=resetPassword&oobCode=C&apiKey=K")
        guard case .appLanding(let target) = Self.router.decide(link, visitor: Visitor(platform: .android)) else {
            Issue.record("no landing")
            return
        }
        let page = Self.builder.landing(target, link: link, visitor: Visitor(platform: .android), request: request, strings: Self.strings)
        #expect(page.openURL?.hasPrefix("intent://links.example.com/__/auth/action?mode=resetPassword") == true)
        #expect(page.storeURL == "https://play.google.com/store/apps/details?id=com.example.app")
        #expect(page.webURL == "/__/auth/action?mode=resetPassword&oobCode=C&apiKey=K&web=1")
        #expect(page.storeLabel == "Play")
    }

    @Test("an iPhone's Open button leads to the pivot host, the same path and query")
    func appleLanding() {
        let link = ActionLink(mode: .signIn, oobCode: "C")
        let request = LinkRequest(path: "//__/auth/links", query: "link=x")
        guard case .appLanding(let target) = Self.router.decide(link, visitor: Visitor(platform: .iOS)) else {
            Issue.record("no landing")
            return
        }
        let page = Self.builder.landing(target, link: link, visitor: Visitor(platform: .iOS), request: request, strings: Self.strings)
        #expect(page.openURL == "https://open.example.com/__/auth/links?link=x")
        #expect(page.webURL == nil, "a sign-in without an allowed continue URL cannot finish on the web")
    }

    @Test("a finished action offers only an allowed continue URL; backend failures map to their pages")
    func messages() {
        let done = Self.builder.message(.done(.verifyEmail, continueURL: "https://app.example.com/"), strings: Self.strings)
        #expect(done.actionURL == "https://app.example.com/" && done.actionLabel == "Continue")
        #expect(PageMessage(.rejected(BackendRefusal(.expiredOobCode))) == .expiredCode)
        #expect(PageMessage(.rejected(BackendRefusal(.userDisabled))).status == .forbidden)
        #expect(PageMessage(.timedOut).status == .gatewayTimeout)
    }

    @Test("the reset form carries the link in hidden fields, the change form both addresses")
    func forms() {
        var link = ActionLink(mode: .resetPassword, oobCode: "C", apiKey: "K", continueURL: "https://app.example.com/")
        let reset = Self.builder.modeForm(link, email: "a@example.com", newEmail: nil, formToken: "T", error: nil, strings: Self.strings)
        let fields = (reset as? ResetPasswordPage)?.fields.map { "\($0.name)=\($0.value)" }
        #expect(fields == ["mode=resetPassword", "oobCode=C", "form=T", "lang=en", "apiKey=K", "continueUrl=https://app.example.com/"])
        link.mode = .verifyAndChangeEmail
        let change = Self.builder.modeForm(link, email: "a@example.com", newEmail: "b@example.com", formToken: "T", error: nil, strings: Self.strings)
        #expect((change as? ConfirmActionPage)?.newEmail == "b@example.com")
    }

    @Test("the debug page shows the router's own decision for each device, in the console's words")
    func debug() throws {
        let english = try #require(try PageAssets.builtIn().strings["en"])
        let page = Self.builder.debug(
            LinkRequest(path: "/__/auth/action", query: "mode=signIn&oobCode=C&continueUrl=https%3A%2F%2Fapp.example.com%2F&d=1"),
            strings: PageStrings(language: "en", table: english))
        #expect(page.shape == "actionURL")
        #expect(
            page.flows.map(\.platform) == [
                "iPhone without the app", "iPad without the app", "Android phone", "Computer", "Link preview (chat apps, search engines)",
            ])
        #expect(page.flows[3].outcome.hasSuffix("https://app.example.com/?apiKey") == false)
        #expect(page.flows[3].outcome.hasPrefix("Straight to https://app.example.com/?oobCode=C&mode=signIn&lang=en"))
    }

    @Test("form bodies: fields decoded, '+' as a space, anything malformed refused rather than guessed")
    func form() {
        let form = PageForm.decode("mode=resetPassword&oobCode=C&newPassword=a+b%21")
        #expect(form?.newPassword == "a b!")
        // The input that once stopped the process: whatever the answer, it must come back.
        _ = PageForm.decode("a=b&=")
        _ = PageForm.decode("a[=1&a[]=2&a[0]=3")
        #expect(PageForm.decode("mode=a&mode=b") == nil)
        #expect(PageForm.decode("oobCode=%zz") == nil)
    }
}
