import HTTPTypes
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
        // Quotes and spaces around it, any case; a quote inside is part of the name.
        let desktop = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"
        for (hint, platform) in [(" \"ANDROID\" ", Platform.android), ("\"iOS\"", .iOS), ("ios", .iOS), ("\"i\"os\"", .desktop), ("", .desktop)] {
            #expect(PlatformClassifier.classify(userAgent: desktop, platformHint: hint).platform == platform, "\(hint)")
        }
    }
}

@Suite("Routing decision")
struct RoutingDecisionTests {
    static let apple = AppleApp(teamID: "ABCDE12345", bundleID: "com.example.app", appStoreID: "123")
    static let android = AndroidApp(packageName: "com.example.app", fingerprints: [])
    static let policy = RedirectPolicy(authorizedDomains: ["app.example.com"])

    func decide(
        _ mode: ActionMode, _ platform: Platform, apps: Bool = true, continueURL: String? = "https://app.example.com/done?x=1",
        hints: PlatformHints = .init(), preferWeb: Bool = false, facts: CodeFacts = .unknown, shape: LinkShape = .actionURL
    ) -> RoutingDecision {
        let link = ActionLink(mode: mode, oobCode: "C", apiKey: "K", continueURL: continueURL, languageCode: "en", hints: hints, shape: shape)
        let router = LinkRouter(
            appleApps: apps ? [Self.apple] : [], androidApps: apps ? [Self.android] : [], policy: Self.policy,
            publicHost: "links.example.com")
        return router.decide(link, visitor: Visitor(platform: platform), preferWeb: preferWeb, facts: facts)
    }

    static let continuation = "https://app.example.com/done?x=1&apiKey=K&oobCode=C&mode=signIn&lang=en"

    @Test("a code the check says is used, expired or invalid ends at once, on every device and for every mode")
    func endings() {
        for platform in [Platform.iOS, .iPadOS, .android, .desktop] {
            for mode in ActionMode.allCases {
                #expect(decide(mode, platform, facts: CodeFacts(state: .expired)) == .codeEnded(.expired))
                #expect(decide(mode, platform, facts: CodeFacts(state: .usedOrInvalid)) == .codeEnded(.usedOrInvalid))
            }
        }
        // A scanner is never checked, so never told.
        #expect(decide(.signIn, .bot, facts: CodeFacts(state: .expired)) == .botPage)
    }

    @Test("a live sign-in an app asked for offers the phone first on a computer; a web app's goes straight on")
    func phoneOrComputer() {
        #expect(decide(.signIn, .desktop, facts: CodeFacts(state: .live, askedByApp: true)) == .phoneOrComputer(continueURL: Self.continuation))
        #expect(decide(.signIn, .desktop, facts: CodeFacts(state: .live, askedByApp: false)) == .continueToApp(Self.continuation))
        // Without the record's word, the link's shape: the app form, or a link naming an app.
        #expect(decide(.signIn, .desktop, facts: CodeFacts(state: .live), shape: .authLinks) == .phoneOrComputer(continueURL: Self.continuation))
        #expect(decide(.signIn, .desktop, facts: CodeFacts(state: .live), shape: .actionURL) == .continueToApp(Self.continuation))
        var hints = PlatformHints()
        hints.iOSBundleID = "com.example.app"
        #expect(decide(.signIn, .desktop, hints: hints, facts: CodeFacts(state: .live)) == .phoneOrComputer(continueURL: Self.continuation))
        // Unchecked (the backend away, the budget spent): today's decision from the text.
        #expect(decide(.signIn, .desktop, facts: .unknown, shape: .authLinks) == .continueToApp(Self.continuation))
        // The phone itself still gets the app.
        #expect(decide(.signIn, .iOS, facts: CodeFacts(state: .live, askedByApp: true)) != .phoneOrComputer(continueURL: Self.continuation))
        // A refused continue URL is never offered.
        #expect(decide(.signIn, .desktop, continueURL: "https://evil.example.net/", facts: CodeFacts(state: .live, askedByApp: true)) == .signInInstructions)
    }

    @Test("a person's GET of a link whose answer depends on the code is checked first; bots and HEAD never")
    func checksFirst() {
        let router = LinkRouter(appleApps: [Self.apple], androidApps: [], policy: Self.policy, publicHost: "links.example.com")
        let request = LinkRequest(path: "/__/auth/action", query: "mode=signIn&oobCode=C&apiKey=K&continueUrl=https%3A%2F%2Fapp.example.com%2Fdone")
        let person = router.answer(request, visitor: Visitor(platform: .desktop), method: .get, isShortLink: false, acceptLanguage: nil)
        guard case .checkCode = person.reply else {
            Issue.record("a person's GET was answered without a check: \(person.reply)")
            return
        }
        let bot = router.answer(request, visitor: Visitor(platform: .bot), method: .get, isShortLink: false, acceptLanguage: nil)
        #expect(bot.reply == .page(.neutral))
        let head = router.answer(request, visitor: Visitor(platform: .desktop), method: .head, isShortLink: false, acceptLanguage: nil)
        if case .checkCode = head.reply { Issue.record("HEAD asked for a check") }
        let ended = router.answer(
            request, visitor: Visitor(platform: .desktop), method: .get, isShortLink: false, acceptLanguage: nil,
            facts: CodeFacts(state: .expired))
        #expect(ended.reply == .codeEnded(ActionLink(mode: .signIn, oobCode: "C", apiKey: "K", continueURL: "https://app.example.com/done"), .expired))
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

@Suite("The language a page speaks")
struct LanguageChoiceTests {
    @Test("Accept-Language is walked by quality value, in the order written among equals")
    func acceptLanguage() {
        #expect(Languages.language(forAcceptLanguage: "sw,ru", otherwise: "en") == "ru")
        #expect(Languages.language(forAcceptLanguage: "sw-KE, it;q=0.5, ru;q=0.9", otherwise: "en") == "ru")
        #expect(Languages.language(forAcceptLanguage: "ru;q=0, it;q=0.1", otherwise: "en") == "it")
        #expect(Languages.language(forAcceptLanguage: "pt-PT,pt;q=0.9", otherwise: "en") == "pt-PT")
        #expect(Languages.language(forAcceptLanguage: "it;q=0.8, tr;q=0.8", otherwise: "en") == "it")
        #expect(Languages.language(forAcceptLanguage: "sw, eu;q=0.9", otherwise: "en") == "en")
        #expect(Languages.language(forAcceptLanguage: "ru;q=abc, it", otherwise: "en") == "it")
        #expect(Languages.language(forAcceptLanguage: ";, ,;q=1", otherwise: "en") == "en")
        #expect(Languages.language(forAcceptLanguage: nil, otherwise: "en") == "en")
        // A header of thousands of tags is read no further than its first few dozen.
        #expect(Languages.language(forAcceptLanguage: String(repeating: "sw,", count: 5000) + "ru", otherwise: "en") == "en")
    }

    @Test("the link's own language first when the pages speak it, else the visitor's, else the configured default")
    func linkFirst() {
        #expect(Languages.language(preferring: "it", acceptLanguage: "ru", otherwise: "en") == "it")
        #expect(Languages.language(preferring: "sw", acceptLanguage: "ru", otherwise: "en") == "ru")
        #expect(Languages.language(preferring: nil, acceptLanguage: "sw,ru;q=0.5", otherwise: "en") == "ru")
        #expect(Languages.language(preferring: "sw", acceptLanguage: "eu, sw;q=0.5", otherwise: "de") == "de")
        #expect(Languages.language(preferring: nil, acceptLanguage: nil, otherwise: "pt-PT") == "pt-PT")
        #expect(Languages.language(preferring: nil, acceptLanguage: "en;q=0.1", otherwise: "de") == "en")
        #expect(Languages.language(for: "sw", otherwise: "fr") == "fr")
    }

    @Test("a tag reaches the language the pages speak by its fallbacks, as Firebase's tags need")
    func fallbacks() {
        let cases: [(String, String)] = [
            ("es-MX", "es-419"), ("es-419", "es-419"), ("es_ar", "es-419"), ("es-ES", "es"), ("es", "es"), ("zh-HK", "zh-TW"),
            ("zh-Hant", "zh-TW"), ("zh-TW", "zh-TW"), ("zh", "zh-CN"), ("zh-CN", "zh-CN"), ("zh-Hans-SG", "zh-CN"), ("pt-BR", "pt"),
            ("pt", "pt"), ("pt-PT", "pt-PT"), ("pt_pt", "pt-PT"), ("pt-AO", "pt-PT"), ("en-GB", "en-GB"), ("en-AU", "en-GB"),
            ("en-US", "en"), ("nb", "no"), ("nn-NO", "no"), ("iw", "he"), ("tl", "fil"), ("in", "id"), ("de-CH", "de"), ("FR-ca", "fr"),
            ("sr-Latn", "sr"), ("ar-EG", "ar"),
        ]
        for (tag, language) in cases { #expect(Languages.language(for: tag, otherwise: "en") == language, "\(tag)") }
        #expect(Languages.language(for: "sw", otherwise: "en") == "en" && Languages.language(for: String(repeating: "a-", count: 100), otherwise: "en") == "en")
        #expect(Languages.supported.count == 42 && Set(Languages.supported).count == 42)
        #expect(Languages.supported.filter(Languages.isRightToLeft).sorted() == ["ar", "fa", "he"])
        #expect(Languages.language(forAcceptLanguage: "es-MX,es;q=0.9", otherwise: "en") == "es-419")
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

    @Test("a port is digits from 1 to 65535, however long its text; the host is lower-cased apart from it")
    func ports() {
        #expect(WebAddress("https://APP.example.com:8443/p")?.port == 8443)
        #expect(WebAddress("https://APP.example.com:8443/p")?.host == "app.example.com")
        #expect(WebAddress("https://app.example.com:00443/")?.port == 443)
        #expect(WebAddress("http://[::1]:8080/x")?.host == "[::1]")
        #expect(WebAddress("http://[::1]:8080/x")?.port == 8080)
        #expect(WebAddress("http://[::1]/x")?.port == nil)
        #expect(WebAddress("https://app.example.com/a:b")?.port == nil)
        for url in [
            "https://app.example.com:/", "https://app.example.com:0/", "https://app.example.com:65536/", "https://app.example.com:+443/",
            "https://app.example.com:-1/", "https://app.example.com:4a3/", "https://:443/", "http://:8080",
            "https://app.example.com:" + String(repeating: "9", count: 40) + "/",
        ] {
            #expect(WebAddress(url) == nil, "\(url)")
        }
    }
}
