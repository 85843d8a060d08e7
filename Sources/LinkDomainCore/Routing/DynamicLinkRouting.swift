/// What a resolution did, as link statistics count it.
public enum LinkEvent: String, Sendable, CaseIterable, Codable {
    case click = "CLICK"
    case redirectToApp = "REDIRECT_TO_APP"
    case redirectToStore = "REDIRECT_TO_STORE"
    case redirectToFallback = "REDIRECT_TO_FALLBACK"
    /// The app asked for the link it was installed through (`installAttribution`, a hand-off claimed).
    case appInstall = "APP_INSTALL"
    case appFirstOpen = "APP_FIRST_OPEN"
    /// The app asked for the link it was opened with (`reopenAttribution`).
    case appReOpen = "APP_RE_OPEN"
}

/// What to do with a Dynamic Link (not an email action), as Dynamic Links did it.
public enum DynamicLinkDecision: Sendable, Equatable {
    /// Crawlers and scanners: a page of Open Graph / Twitter meta tags, no redirect.
    case socialPreview
    /// Phones, unless `efr=1`: the preview page, with a way into the app, the store, and the deep link.
    case previewPage(app: AppTarget?, continueURL: String?)
    /// Go straight there.
    case redirect(String, LinkEvent)
    /// No allowed destination: a page saying so.
    case refused
}

extension LinkRouter {
    /// The Dynamic Links rules:
    ///
    /// | visitor | rule |
    /// |---|---|
    /// | crawler, scanner | social preview page (meta tags from `st`, `sd`, `si`) |
    /// | iPhone, iPad | preview page unless `efr=1`; then the app's store page (`ifl`/`ipfl`, else the App Store from `isi` or the configured ID) when `ibi` names a configured app, else `ifl`, else `link` |
    /// | Android | preview page unless `efr=1`; then an `intent://` link that opens the `apn` app, falling back to `afl` or Google Play, when `apn` names a configured app, else `afl`, else `link` |
    /// | desktop | `ofl`, else `link` |
    ///
    /// Every destination must pass the redirect policy; app stores always do.
    ///
    /// - Parameter pathAndQuery: this request's path and query, which an Android intent opens in the app.
    public func decide(_ link: DynamicLink, visitor: Visitor, pathAndQuery: String) -> DynamicLinkDecision {
        let hints = link.hints
        let deepLink = policy.allowed(link.deepLink)
        switch visitor.platform {
        case .bot:
            return .socialPreview
        case .desktop:
            if let fallback = hints.otherPlatformFallbackURL.flatMap(policy.allowed) { return .redirect(fallback, .redirectToFallback) }
            return deepLink.map { .redirect($0, .redirectToFallback) } ?? .refused
        case .iOS, .iPadOS:
            let target = hints.iOSBundleID == nil && hints.iPadBundleID == nil ? nil : appTarget(hints, platform: visitor.platform)
            let fallback = ((visitor.platform == .iPadOS ? hints.iPadFallbackURL : nil) ?? hints.iOSFallbackURL).flatMap(policy.allowed)
            if !hints.skipPreviewPage && (target != nil || deepLink != nil || fallback != nil) {
                return .previewPage(app: target, continueURL: fallback ?? deepLink)
            }
            if let fallback { return .redirect(fallback, .redirectToFallback) }
            if let store = target?.storeURL ?? hints.iOSAppStoreID.flatMap(ConfigurationValidators.appStoreID).map(AppTarget.appStoreURL) {
                return .redirect(store, .redirectToStore)
            }
            return deepLink.map { .redirect($0, .redirectToFallback) } ?? .refused
        case .android:
            let target = hints.androidPackageName == nil ? nil : appTarget(hints, platform: .android)
            let fallback = hints.androidFallbackURL.flatMap(policy.allowed)
            if !hints.skipPreviewPage && (target != nil || deepLink != nil || fallback != nil) {
                return .previewPage(app: target, continueURL: fallback ?? deepLink)
            }
            if let target, case .android(let app) = target.kind {
                return .redirect(
                    androidIntent(
                        pathAndQuery: pathAndQuery, package: app.packageName,
                        fallback: fallback ?? target.storeURL ?? ""), .redirectToApp)
            }
            return (fallback ?? deepLink).map { .redirect($0, .redirectToFallback) } ?? .refused
        }
    }
}
