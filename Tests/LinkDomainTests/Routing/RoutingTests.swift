import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Platform detection from real user agents")
struct PlatformClassifierTests {
    static let cases: [(String, Platform, InAppBrowser?)] = [
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1", .iOS, nil),
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120.0.6099.119 Mobile/15E148 Safari/604.1",
            .iOS, nil
        ),
        ("Mozilla/5.0 (iPad; CPU OS 15_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/15.6 Mobile/15E148 Safari/604.1", .iPadOS, nil),
        // Desktop-class iPad Safari presents as a Mac but keeps the Mobile/ token.
        ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1", .iPadOS, nil),
        ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36", .android, nil),
        (
            "Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36",
            .android, nil
        ),
        ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15", .desktop, nil),
        ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0", .desktop, nil),
        ("Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0", .desktop, nil),
        // In-app mail browsers.
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 GmailApp/6.0", .iOS, .gmail),
        (
            "Mozilla/5.0 (Linux; Android 14; Pixel 7 Build/AP1A; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0 Mobile Safari/537.36 Outlook-Android/2.0",
            .android, .outlook
        ),
        // Other apps' own browsers: Outlook for iOS (a web view without Safari/), the Google app, Facebook, Instagram, Android WebViews.
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148", .iOS, .other),
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) GSA/315.0.630091404 Mobile/15E148 Safari/604.1",
            .iOS, .googleApp
        ),
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/466.0.0.36.107;FBBV/600000000]",
            .iOS, .facebook
        ),
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 331.0.2.26.99 (iPhone15,2; iOS 17_5; en_US)",
            .iOS, .instagram
        ),
        (
            "Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/125.0 Mobile Safari/537.36",
            .android, .other
        ),
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/126.0 Mobile/15E148 Safari/605.1.15", .iOS,
            nil
        ),
        // Scanners and previewers.
        ("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", .bot, nil),
        ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.0.0 Safari/537.36", .bot, nil),
        ("Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", .bot, nil),
        ("facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", .bot, nil),
        ("WhatsApp/2.23.20.0 A", .bot, nil),
        ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Outlook-iOS-LinkPreview", .bot, nil),
        ("Barracuda Sentinel (EE)", .bot, nil),
        ("python-requests/2.31.0", .bot, nil),
        ("curl/8.5.0", .bot, nil),
        ("", .bot, nil),
    ]

    @Test("user-agent table", arguments: cases)
    func classify(agent: String, platform: Platform, inApp: InAppBrowser?) {
        let visitor = PlatformClassifier.classify(userAgent: agent)
        #expect(visitor.platform == platform, "\(agent)")
        #expect(visitor.inAppBrowser == inApp, "\(agent)")
    }

    @Test("client hints name the platform when the user agent is reduced")
    func clientHints() {
        let reduced = "Mozilla/5.0 (Linux; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36"
        #expect(PlatformClassifier.classify(userAgent: reduced, platformHint: "\"Android\"").platform == .android)
        #expect(PlatformClassifier.classify(userAgent: reduced, platformHint: "\"Windows\"").platform == .desktop)
    }
}

@Suite("Routing decision")
struct RoutingDecisionTests {
    static let apple = AppleApp(teamID: "ABCDE12345", bundleID: "com.example.app", appStoreID: "123")
    static let android = AndroidApp(packageName: "com.example.app", fingerprints: [])
    static let policy = RedirectPolicy(authorizedDomains: ["app.example.com"])

    func decide(
        _ mode: ActionMode, _ platform: Platform, apps: Bool = true, continueURL: String? = "https://app.example.com/done?x=1",
        hints: PlatformHints = .init(), preferWeb: Bool = false
    ) -> RoutingDecision {
        let link = ActionLink(mode: mode, oobCode: "C", apiKey: "K", continueURL: continueURL, languageCode: "en", hints: hints)
        let router = LinkRouter(
            appleApps: apps ? [Self.apple] : [], androidApps: apps ? [Self.android] : [], policy: Self.policy,
            publicHost: "links.example.com")
        return router.decide(link, visitor: Visitor(platform: platform), preferWeb: preferWeb)
    }

    @Test("the documented table")
    func table() {
        #expect(decide(.signIn, .bot) == .botPage)
        #expect(decide(.resetPassword, .iOS) == .appLanding(AppTarget(kind: .apple(Self.apple), storeURL: "https://apps.apple.com/app/id123")))
        #expect(decide(.verifyEmail, .iPadOS) == .appLanding(AppTarget(kind: .apple(Self.apple), storeURL: "https://apps.apple.com/app/id123")))
        #expect(
            decide(.signIn, .android)
                == .appLanding(
                    AppTarget(
                        kind: .android(Self.android),
                        storeURL: "https://play.google.com/store/apps/details?id=com.example.app")))
        #expect(decide(.resetPassword, .desktop) == .webPage)
        #expect(decide(.resetPassword, .iOS, apps: false) == .webPage)
        #expect(decide(.resetPassword, .android, preferWeb: true) == .webPage)
        #expect(decide(.signIn, .desktop) == .continueToApp("https://app.example.com/done?x=1&apiKey=K&oobCode=C&mode=signIn&lang=en"))
        #expect(decide(.signIn, .desktop, continueURL: nil) == .signInInstructions)
        #expect(decide(.signIn, .desktop, continueURL: "https://evil.example.net/") == .signInInstructions)
    }

    @Test("a link naming another app's bundle or package is not offered to the configured one")
    func otherApp() {
        var hints = PlatformHints()
        hints.iOSBundleID = "com.other.app"
        hints.androidPackageName = "com.other.app"
        #expect(decide(.resetPassword, .iOS, hints: hints) == .webPage)
        #expect(decide(.resetPassword, .android, hints: hints) == .webPage)
    }

    @Test("the sign-in continuation keeps the continue URL's own query and fragment")
    func continuation() {
        let link = ActionLink(mode: .signIn, oobCode: "a/b+c", apiKey: "K", languageCode: "ru", tenantID: "T")
        #expect(
            LinkRouter.signInContinuation("https://app.example.com/p?a=1&b=2#frag", link: link)
                == "https://app.example.com/p?a=1&b=2&apiKey=K&oobCode=a%2Fb%2Bc&mode=signIn&lang=ru&tenantId=T#frag")
        #expect(
            LinkRouter.signInContinuation("https://app.example.com/", link: link)
                == "https://app.example.com/?apiKey=K&oobCode=a%2Fb%2Bc&mode=signIn&lang=ru&tenantId=T")
    }
}

@Suite("Redirect allow-list")
struct RedirectPolicyTests {
    let policy = RedirectPolicy(authorizedDomains: ["app.example.com", "xn--mnchen-3ya.example"])

    @Test("allowed targets")
    func allowed() {
        for url in [
            "https://app.example.com/", "https://app.example.com/p?a=1&b=2#x", "https://APP.Example.com/",
            "https://apps.apple.com/app/id123", "https://play.google.com/store/apps/details?id=x", "https://xn--mnchen-3ya.example/",
        ] {
            #expect(policy.allowed(url) != nil, "\(url)")
        }
        #expect(RedirectPolicy(authorizedDomains: ["localhost"]).allowed("http://localhost:3000/done") != nil)
    }

    @Test("the usual open-redirect tricks are refused")
    func refused() {
        let tricks = [
            "https://app.example.com@evil.example.net/", "https://user:pass@app.example.com/", "https://evil.example.net/",
            "https://evil.example.net\\@app.example.com/", "https:\\\\evil.example.net", "//evil.example.net/", "///evil.example.net/",
            "https:///evil.example.net/", "/relative/path", "javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,<script>alert(1)</script>",
            "http://app.example.com/", "ftp://app.example.com/", "https://app.example.com.evil.example.net/",
            "https://evil.example.net/?https://app.example.com/", "https://app%2eexample.com/", "https://app.example%2Ecom/",
            "https://münchen.example/", "https://app.example.com\u{0}.evil.net/", "https://app.example.com /", "https://app.example.com./",
            "https://evil.example.net#@app.example.com", "https://evil.example.net%23@app.example.com", " https://app.example.com/",
            "https://app.example.com\t/", "",
        ]
        for url in tricks {
            #expect(policy.allowed(url) == nil, "\(url)")
        }
    }
}
