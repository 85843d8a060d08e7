import LinkDomain

/// libFuzzer's entry point: the input is read as a link (any bytes, as UTF-8 with replacement)
/// and taken through everything a click goes through before any I/O: parsing as an email action
/// and as a Dynamic Link, and the routing decision for every kind of visitor.
///
/// Besides crashes and hangs, it stops on a broken promise: every redirect it decides on must be
/// one the redirect policy allows (no open redirect, whatever the input).
@_cdecl("LLVMFuzzerTestOneInput")
public func linkParserFuzzTarget(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let policy = RedirectPolicy(authorizedDomains: ["example.com", "links.example.com"])
    let apple = [AppleApp(teamID: "A1B2C3D4E5", bundleID: "dev.linkdomain.demo", appStoreID: "1234567890")]
    let android = [AndroidApp(packageName: "dev.linkdomain.demo", fingerprints: [])]
    let visitors = [Platform.iOS, .iPadOS, .android, .desktop, .bot].map { Visitor(platform: $0) }

    if case .success(let link) = LinkParser.parse(url: text) {
        for visitor in visitors {
            for preferWeb in [false, true] {
                let decision = LinkRouter.decide(link, visitor: visitor, appleApps: apple, androidApps: android, policy: policy,
                                                 preferWeb: preferWeb)
                if case .continueToApp(let url) = decision, policy.allowed(url) == nil {
                    fatalError("redirect to a URL the policy refuses: \(url)")
                }
            }
        }
    }
    let query = text.split(separator: "?", maxSplits: 1).dropFirst().first ?? Substring(text)
    if let dynamic = LinkParser.parseDynamicLink(query: query) {
        for visitor in visitors {
            let decision = LinkRouter.decide(dynamic, visitor: visitor, appleApps: apple, androidApps: android, policy: policy,
                                             intentHost: "links.example.com", pathAndQuery: "/?" + query)
            if case .redirect(let url, _) = decision, !url.hasPrefix("intent://"), policy.allowed(url) == nil {
                fatalError("redirect to a URL the policy refuses: \(url)")
            }
        }
    }
    _ = PlatformClassifier.classify(userAgent: text, platformHint: text)
    return 0
}
