import LinkDomainCore

/// Takes arbitrary input through everything a click goes through before any I/O: parsing as an
/// email action and as a Dynamic Link, user-agent classification, the routing decision for every
/// kind of visitor. The fuzzer (`Fuzz/`) calls it with generated input, the tests with the fuzzer's
/// corpus. It needs the core alone.
///
/// Returns the first broken promise it finds: a redirect the redirect policy would refuse, or a
/// link parameter read differently by the click's one-pass reader and the plain query reader.
public enum LinkExercise {
    package static let policy = RedirectPolicy(authorizedDomains: ["example.com", "links.example.com"])
    static let router = LinkRouter(
        appleApps: [AppleApp(teamID: "A1B2C3D4E5", bundleID: "dev.linkdomain.demo", appStoreID: "1234567890")],
        androidApps: [AndroidApp(packageName: "dev.linkdomain.demo", fingerprints: [])],
        policy: policy, publicHost: "links.example.com")
    static let visitors = Platform.allCases.map { Visitor(platform: $0) }
    static let appLinks = AppLinkResolver(configuration: LinkDomainConfiguration(publicBaseURL: "https://links.example.com"))
    static let handoffs = HandoffSealer(secret: Array(repeating: 42, count: 32))

    public static func run(_ text: String) -> String? {
        if case .success(let link) = LinkParser.parse(url: text) {
            for visitor in visitors {
                for preferWeb in [false, true] {
                    let decision = router.decide(link, visitor: visitor, preferWeb: preferWeb)
                    if case .continueToApp(let url) = decision, policy.allowed(url) == nil { return "action link redirects to \(url)" }
                }
            }
        }
        let query = text.split(separator: "?", maxSplits: 1).dropFirst().first ?? Substring(text)
        if let dynamic = LinkParser.parseDynamicLink(query: query) {
            for visitor in visitors {
                let decision = router.decide(dynamic, visitor: visitor, pathAndQuery: "/?" + query)
                if case .redirect(let url, _) = decision, !url.hasPrefix("intent://"), policy.allowed(url) == nil {
                    return "Dynamic Link redirects to \(url)"
                }
            }
        }
        // The whole request path: routing (with `d=1` and `web=1`) and the debug page's flows.
        let path = text.split(separator: "?", maxSplits: 1).first ?? ""
        for visitor in visitors {
            _ = router.route(LinkRequest(path: path, query: query), visitor: visitor)
            _ = router.route(LinkRequest(storedQuery: query, requestPath: "/abcd", requestQuery: "d=1"), visitor: visitor)
        }
        _ = router.debugFlows(linkQuery: query, pathAndQuery: "/")
        // What an app sends (`requestedLink`, `uniqueMatchLinkToCheck`): its shape, a hand-off token in it, the token opened.
        _ = appLinks.shape(of: text)
        if let token = HandoffPaths.token(in: text, hosts: appLinks.hosts), handoffs.open(token) != nil {
            return "a hand-off token opened that was never sealed"
        }
        if handoffs.open(text) != nil { return "a hand-off token opened that was never sealed" }
        let app = HandoffApp(store: .android, id: "com.example.app")
        if text.utf8.count <= HandoffSealer.maximumLinkBytes, let sealed = handoffs.seal(link: text, app: app, now: 0, lifetime: 60),
            handoffs.open(sealed).map({ $0.link != text || $0.app != app }) ?? true
        {
            return "a hand-off token does not open to the link and app sealed in it"
        }
        _ = PlatformClassifier.classify(userAgent: text, platformHint: text)
        // The parameters a click reads in one pass must be the ones the plain query reader finds.
        let parameters = LinkParameters(Substring(text)), plain = QueryString(Substring(text))
        for name in LinkParameters.Name.allCases where parameters[name] != plain[name.wireName] {
            return "\(name.wireName) read as \(parameters[name] ?? "nothing"), not \(plain[name.wireName] ?? "nothing")"
        }
        return nil
    }
}
