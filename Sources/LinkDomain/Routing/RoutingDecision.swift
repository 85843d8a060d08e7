/// What to do with an action link for a visitor, decided from the link, the visitor's platform and
/// the configured apps alone, so the rules fit in a table (README, "Routing") and in unit tests.
public enum RoutingDecision: Sendable, Equatable {
    /// Offer the app: a landing page with "Open in app", the store link, and (where the mode can
    /// complete on the web) "continue in this browser".
    case appLanding(AppTarget)
    /// Complete the action on this service's own pages.
    case webPage
    /// `signIn` on the web: 303 to the continue URL with the action parameters added.
    case continueToApp(String)
    /// `signIn` on the web without an allowed continue URL: a page explaining how to finish.
    case signInInstructions
    /// Scanners and previewers get a neutral page: no backend call, nothing revealed or spent.
    case botPage
}

/// The app a landing page offers.
public struct AppTarget: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case apple(AppleApp)
        case android(AndroidApp)
    }

    public var kind: Kind
    /// Where "get the app" goes (App Store or Play); never carries the code.
    public var storeURL: String?

    public var name: String {
        switch kind {
        case .apple(let app): app.bundleID
        case .android(let app): app.packageName
        }
    }
}

public enum LinkRouter {
    /// The rules, in order:
    ///
    /// | visitor | condition | decision |
    /// |---|---|---|
    /// | bot | — | `botPage` |
    /// | iOS / iPadOS | an Apple app is configured (the link's `ibi`/`ipbi` if it names one), and the visitor did not ask for the web | `appLanding` |
    /// | Android | an Android app is configured (the link's `apn` if it names one), and the visitor did not ask for the web | `appLanding` |
    /// | any | mode `signIn`, continue URL allowed | `continueToApp` |
    /// | any | mode `signIn`, continue URL absent or refused | `signInInstructions` |
    /// | any | other modes | `webPage` |
    public static func decide(
        _ link: ActionLink, visitor: Visitor, appleApps: [AppleApp], androidApps: [AndroidApp], policy: RedirectPolicy,
        preferWeb: Bool = false
    ) -> RoutingDecision {
        if visitor.platform == .bot { return .botPage }
        if !preferWeb, let target = appTarget(link, platform: visitor.platform, appleApps: appleApps, androidApps: androidApps) {
            return .appLanding(target)
        }
        guard link.mode == .signIn else { return .webPage }
        guard let continueURL = link.continueURL.flatMap(policy.allowed) else { return .signInInstructions }
        return .continueToApp(signInContinuation(continueURL, link: link))
    }

    static func appTarget(_ link: ActionLink, platform: Platform, appleApps: [AppleApp], androidApps: [AndroidApp]) -> AppTarget? {
        switch platform {
        case .iOS, .iPadOS:
            let wanted = platform == .iPadOS ? (link.hints.iPadBundleID ?? link.hints.iOSBundleID) : link.hints.iOSBundleID
            guard let app = appleApps.first(where: { $0.bundleID == wanted }) ?? (wanted == nil ? appleApps.first : nil) else { return nil }
            let storeID = app.appStoreID ?? link.hints.iOSAppStoreID.flatMap(ConfigurationValidators.appStoreID)
            return AppTarget(kind: .apple(app), storeURL: storeID.map { "https://apps.apple.com/app/id\($0)" })
        case .android:
            let wanted = link.hints.androidPackageName
            guard let app = androidApps.first(where: { $0.packageName == wanted }) ?? (wanted == nil ? androidApps.first : nil) else {
                return nil
            }
            return AppTarget(kind: .android(app), storeURL: "https://play.google.com/store/apps/details?id=\(app.packageName)")
        case .desktop, .bot:
            return nil
        }
    }

    /// The continue URL with `apiKey`, `oobCode`, `mode`, `lang` (and `tenantId`) added to its own
    /// query, which is kept as it is, as Firebase's hosted handler does for sign-in links.
    public static func signInContinuation(_ continueURL: String, link: ActionLink) -> String {
        let utf8 = continueURL.utf8
        let hash = utf8.firstIndex(of: UInt8(ascii: "#")) ?? utf8.endIndex
        let base = utf8[..<hash]
        var result: [UInt8] = []
        result.reserveCapacity(utf8.count + 192)
        result.append(contentsOf: base)
        if !base.contains(UInt8(ascii: "?")) {
            result.append(UInt8(ascii: "?"))
        } else if let last = base.last, last != UInt8(ascii: "?") && last != UInt8(ascii: "&") {
            result.append(UInt8(ascii: "&"))
        }
        var first = true
        for (name, value) in [("apiKey", link.apiKey), ("oobCode", link.oobCode), ("mode", link.mode.rawValue), ("lang", link.languageCode ?? "en"),
                              ("tenantId", link.tenantID)] {
            guard let value else { continue }
            if !first { result.append(UInt8(ascii: "&")) }
            first = false
            result.append(contentsOf: name.utf8)
            result.append(UInt8(ascii: "="))
            ActionLinkEncoder.percentEncode(value, into: &result)
        }
        result.append(contentsOf: utf8[hash...])
        return String(decoding: result, as: UTF8.self)
    }
}
