import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Dynamic Links routing: each parameter on each platform")
struct DynamicLinkRoutingTests {
    static let apple = AppleApp(teamID: "ABCDE12345", bundleID: "com.example.app", appStoreID: "123")
    static let android = AndroidApp(packageName: "com.example.app", fingerprints: [])
    static let policy = RedirectPolicy(authorizedDomains: ["example.com"])

    func decide(_ query: String, _ platform: Platform) -> DynamicLinkDecision {
        let link = LinkParser.parseDynamicLink(query: Substring(query))!
        let router = LinkRouter(appleApps: [Self.apple], androidApps: [Self.android], policy: Self.policy, publicHost: "links.example.com")
        return router.decide(link, visitor: Visitor(platform: platform), pathAndQuery: "/x")
    }

    static let deep = "link=https%3A%2F%2Fexample.com%2Fproduct%2F42"

    @Test("desktop: ofl, else link; never an unauthorized host")
    func desktop() {
        #expect(decide("\(Self.deep)&ofl=https%3A%2F%2Fexample.com%2Fdesktop", .desktop) == .redirect("https://example.com/desktop", .redirectToFallback))
        #expect(decide(Self.deep, .desktop) == .redirect("https://example.com/product/42", .redirectToFallback))
        #expect(decide("\(Self.deep)&ofl=https%3A%2F%2Fevil.example.net%2F", .desktop) == .redirect("https://example.com/product/42", .redirectToFallback))
        #expect(decide("link=https%3A%2F%2Fevil.example.net%2F", .desktop) == .refused)
    }

    @Test("iOS: the preview page unless efr=1; then ifl, the App Store for a configured ibi, else link")
    func iOS() {
        let target = AppTarget(kind: .apple(Self.apple), storeURL: "https://apps.apple.com/app/id123")
        #expect(decide("\(Self.deep)&ibi=com.example.app", .iOS) == .previewPage(app: target, continueURL: "https://example.com/product/42"))
        #expect(decide("\(Self.deep)&ibi=com.example.app&efr=1", .iOS) == .redirect("https://apps.apple.com/app/id123", .redirectToStore))
        #expect(
            decide("\(Self.deep)&ibi=com.example.app&ifl=https%3A%2F%2Fexample.com%2Fios&efr=1", .iOS)
                == .redirect("https://example.com/ios", .redirectToFallback))
        #expect(decide("\(Self.deep)&ibi=com.other.app&isi=999&efr=1", .iOS) == .redirect("https://apps.apple.com/app/id999", .redirectToStore))
        #expect(decide("\(Self.deep)&efr=1", .iOS) == .redirect("https://example.com/product/42", .redirectToFallback))
        #expect(
            decide("\(Self.deep)&ibi=com.example.app&ipfl=https%3A%2F%2Fexample.com%2Fipad&efr=1", .iPadOS)
                == .redirect("https://example.com/ipad", .redirectToFallback))
    }

    @Test("Android: the preview page unless efr=1; then an intent to the apn app with afl or Play as fallback, else afl, else link")
    func android() {
        let target = AppTarget(kind: .android(Self.android), storeURL: "https://play.google.com/store/apps/details?id=com.example.app")
        #expect(decide("\(Self.deep)&apn=com.example.app", .android) == .previewPage(app: target, continueURL: "https://example.com/product/42"))
        #expect(
            decide("\(Self.deep)&apn=com.example.app&amv=12&efr=1", .android)
                == .redirect(
                    "intent://links.example.com/x#Intent;scheme=https;package=com.example.app;"
                        + "S.browser_fallback_url=https%3A%2F%2Fplay.google.com%2Fstore%2Fapps%2Fdetails%3Fid%3Dcom.example.app;end", .redirectToApp))
        #expect(
            decide("\(Self.deep)&apn=com.example.app&afl=https%3A%2F%2Fexample.com%2Fandroid&efr=1", .android)
                == .redirect(
                    "intent://links.example.com/x#Intent;scheme=https;package=com.example.app;S.browser_fallback_url=https%3A%2F%2Fexample.com%2Fandroid;end",
                    .redirectToApp))
        #expect(
            decide("\(Self.deep)&apn=com.other.app&afl=https%3A%2F%2Fexample.com%2Fandroid&efr=1", .android)
                == .redirect("https://example.com/android", .redirectToFallback))
        #expect(decide("\(Self.deep)&efr=1", .android) == .redirect("https://example.com/product/42", .redirectToFallback))
    }

    @Test("crawlers get the social preview whatever the parameters")
    func crawlers() {
        #expect(decide("\(Self.deep)&st=Title&efr=1", .bot) == .socialPreview)
    }
}
