import Foundation
import HTTPTypes
import LinkDomainCore
import LinkDomainStorage

/// Builds each page's model from a routing decision: pure functions of the link, the visitor, the
/// configuration and the strings of one language, so every page is tested without HTTP.
struct PageBuilder: Sendable {
    let router: LinkRouter
    /// The second host "Open in app" leads to: a universal link fires only for a tap that leads
    /// to another domain.
    let pivotBaseURL: String?
    /// This service's origin, for the https address of a page and the Smart App Banner's argument.
    var publicBaseURL = ""
    /// The app's name as pages say it (`branding.appName`).
    var appName = ""
    /// The app's website (`branding.homeURL`): "Back to {site}" where a page has nowhere else to lead.
    var homeURL: String?
    /// Seals a link, for the app a page offers, into a hand-off token that survives the app's
    /// install (the Play referrer, the pasteboard); nil makes none.
    var handoffToken: (@Sendable (String, HandoffApp) -> String?)?

    /// - Parameter backTo: an allowed continue URL: an error page leads back there ("Back to example.com")
    ///   instead of being a dead end.
    ///   - mode: the link's mode, when the page is about a link: an error then says what the link was for.
    ///   - retryURL: the link's own page, which "Try again" reloads after a backend failure (502, 503, 504).
    func message(_ message: PageMessage, strings: PageStrings, backTo: String? = nil, mode: ActionMode? = nil, retryURL: String? = nil)
        -> MessagePage
    {
        var page = MessagePage(
            title: strings[message.texts.title].substituting("{app}", with: appName),
            paragraphs: [strings[message.texts.body].substituting("{app}", with: appName)])
        if let mode, message.status.code >= 400 {
            page.purpose = strings[mode.texts.landingTitle].substituting("{app}", with: appName)
        }
        if message.isBackendFailure, let retryURL {
            page.actionURL = retryURL
            page.actionLabel = strings[.retry]
        } else if case .done(_, let continueURL?) = message {
            page.actionURL = continueURL
            page.actionLabel = strings[.continueButton]
        } else if let backTo = backTo ?? homeURL, let host = WebAddress(backTo)?.host {
            page.actionURL = backTo
            // The app's name where `branding.appName` gives one (it defaults to this service's host).
            page.actionLabel = strings[.backToSite].substituting("{site}", with: appName == router.publicHost ? host : appName)
        } else if message.isEnding {
            page.closeNote = strings[.closePage]
        }
        return page
    }

    /// After a finished action with nowhere else to lead, on Android with the app configured: "Open
    /// the {app} app" (its store page when it is not installed). iPhones have Safari's Smart App
    /// Banner on every page for this; an app's own browser cannot open apps at all.
    func openAppAfterSuccess(_ page: inout MessagePage, visitor: Visitor, strings: PageStrings) {
        // Before the website (`homeURL`), never before the continue URL the app asked for.
        guard page.actionURL == nil || page.actionURL == homeURL, visitor.inAppBrowser == nil,
            let target = router.appTarget(PlatformHints(), platform: visitor.platform),
            case .android(let app) = target.kind
        else { return }
        page.actionURL = router.androidIntent(pathAndQuery: "/", package: app.packageName, fallback: target.storeURL ?? "")
        page.actionLabel = strings[.openApp].substituting("{app}", with: appName)
    }

    /// The page that offers the app for an email action: where the browser finishes the action,
    /// "Continue" first and the app second; for a sign-in, the app first.
    ///
    /// - Parameter appDidNotOpen: the request came to the pivot host, which only a tap the app did
    ///   not take reaches: "App not installed?", the browser and the store, never "Open in the app"
    ///   again (it would load this page once more, forever).
    func landing(
        _ target: AppTarget, link: ActionLink, visitor: Visitor, request: LinkRequest, strings: PageStrings,
        appDidNotOpen: Bool = false
    ) -> LandingPage {
        let pathAndQuery = request.ownPathAndQuery
        let texts = link.mode.texts
        let body: PageText = appDidNotOpen ? (link.mode == .signIn ? .appNotInstalledSigninBody : .appNotInstalledBody) : texts.landingBody
        var page = LandingPage(
            title: strings[appDidNotOpen ? .appNotInstalledTitle : texts.landingTitle].substituting("{app}", with: appName),
            body: strings[body].substituting("{app}", with: appName))
        page.continueFirst = link.mode != .signIn
        // Rebuilt from the parsed link, never the request's own text: a raw comma there would add
        // keys to the banner's `content` (`app-argument=..., app-id=...`). Every value is percent-encoded.
        page.appArgument = encoder.appLink(Self.parameters(link))
        switch target.kind {
        case .apple:
            page.openURL = pivotBaseURL.map { $0 + pathAndQuery }
            let fallback = (visitor.platform == .iPadOS ? link.hints.iPadFallbackURL : nil) ?? link.hints.iOSFallbackURL
            page.storeURL = fallback.flatMap(router.policy.allowed) ?? target.storeURL
            page.storeLabel = strings[target.storeURL == nil ? .getAppFallback : .getAppStore]
            if fallback == nil, target.storeURL != nil { page.handoffURL = handoffURL(pathAndQuery, for: target) }
        case .android(let app):
            let store =
                link.hints.androidFallbackURL.flatMap(router.policy.allowed)
                ?? withReferrer(target.storeURL, pathAndQuery: pathAndQuery, for: target) ?? ""
            page.openURL = router.androidIntent(pathAndQuery: pathAndQuery, package: app.packageName, fallback: store)
            page.storeURL = store
            page.storeLabel = strings[.getAppPlay]
        }
        if link.mode != .signIn || link.continueURL.flatMap(router.policy.allowed) != nil {
            page.webURL = Self.withParameter("web=1", pathAndQuery: pathAndQuery, hasQuery: request.requestQuery != nil)
        }
        if let inApp = visitor.inAppBrowser {
            // Links cannot open apps here, and intent:// mostly fails: say how to get to the real browser.
            page.openURL = nil
            page.inAppHelp = inAppHelp(inApp, platform: visitor.platform, strings: strings)
            page.pageURL = publicBaseURL + pathAndQuery
            page.copiedNote = strings[.linkCopied].substituting("{browser}", with: visitor.platform == .android ? "Chrome" : "Safari")
            // One way to copy: "Copy link" (to paste into Safari or Chrome), not also "Copy the link and get the app".
            page.handoffURL = nil
        }
        if appDidNotOpen { page.openURL = nil }
        if !page.continueFirst && !appDidNotOpen && page.openURL == nil && page.inAppHelp == nil {
            // No pivot host: the app opens only from the mail's own link, by a long press there.
            page.pressAndHold = strings[.landingNoPivot].substituting("{app}", with: appName)
        }
        return page
    }

    /// The pasteboard's hand-off URL for this page's link (iPhone: "Copy the link and get the app").
    func handoffURL(_ pathAndQuery: String, for target: AppTarget) -> String? {
        handoffToken?(publicBaseURL + pathAndQuery, HandoffApp(target)).map { publicBaseURL + HandoffPaths.prefix + $0 }
    }

    /// Google Play's URL carrying this page's link across the install in its `referrer` (Install Referrer API).
    func withReferrer(_ storeURL: String?, pathAndQuery: String, for target: AppTarget) -> String? {
        guard let storeURL, let token = handoffToken?(publicBaseURL + pathAndQuery, HandoffApp(target)) else { return storeURL }
        return storeURL + "&referrer=" + ActionLinkEncoder.percentEncode(HandoffSealer.referrerPrefix + token)
    }

    /// The link's own action page on this service, rebuilt from the parsed link (every value percent-encoded).
    func actionPageURL(_ link: ActionLink, baseURL: String? = nil) -> String {
        ActionLinkEncoder(baseURL: baseURL ?? publicBaseURL).actionURL(Self.parameters(link))
    }

    private var encoder: ActionLinkEncoder { ActionLinkEncoder(baseURL: publicBaseURL) }

    private static func parameters(_ link: ActionLink) -> ActionLinkEncoder.Parameters {
        ActionLinkEncoder.Parameters(
            apiKey: link.apiKey ?? "", mode: link.mode.rawValue, oobCode: link.oobCode, continueURL: link.continueURL,
            languageCode: link.languageCode, tenantID: link.tenantID)
    }

    /// "You are in Gmail's own browser ... open the page in Safari", in the visitor's language.
    func inAppHelp(_ browser: InAppBrowser, platform: Platform, strings: PageStrings) -> String {
        let source = browser.displayName.name ?? browser.displayName.text.map { strings[$0] }
        let text = source == nil ? strings[.inappHelpGeneric] : strings[.inappHelp]
        return text.substituting([("{source}", source ?? ""), ("{app}", appName), ("{browser}", platform == .android ? "Chrome" : "Safari")])
    }

    /// The Dynamic Links preview page; its buttons lead on with the preview skipped (`efr=1`).
    func preview(_ link: DynamicLink, app: AppTarget?, continueURL: String?, request: LinkRequest, strings: PageStrings) -> PreviewPage {
        var page = PreviewPage(
            title: link.hints.socialTitle ?? strings[.previewTitle], description: link.hints.socialDescription,
            continueURL: continueURL)
        let onward = Self.withParameter("efr=1", pathAndQuery: request.ownPathAndQuery, hasQuery: request.requestQuery != nil)
        switch app?.kind {
        case .apple?:
            page.openURL = pivotBaseURL.map { $0 + onward }
            page.storeURL = app?.storeURL
            page.storeLabel = strings[.getAppStore]
            if let app, app.storeURL != nil { page.handoffURL = handoffURL(request.ownPathAndQuery, for: app) }
        case .android(let android)?:
            let store = app.flatMap { withReferrer($0.storeURL, pathAndQuery: request.ownPathAndQuery, for: $0) }
            page.openURL = router.androidIntent(
                pathAndQuery: onward, package: android.packageName,
                fallback: link.hints.androidFallbackURL.flatMap(router.policy.allowed) ?? store ?? "")
            page.storeURL = store
            page.storeLabel = strings[.getAppPlay]
        case nil:
            break
        }
        return page
    }

    /// What crawlers (Slack, iMessage, X, Facebook, WhatsApp, LinkedIn) read to draw a preview card.
    func social(_ hints: PlatformHints, fallbackTitle: String?) -> SocialPage {
        SocialPage(
            title: hints.socialTitle ?? fallbackTitle ?? router.publicHost, description: hints.socialDescription,
            imageURL: hints.socialImageURL.flatMap { WebAddress($0)?.scheme == "https" ? $0 : nil })
    }

    /// The form for the link's mode, with the link carried in hidden fields to the POST.
    ///
    /// - Parameters:
    ///   - email, newEmail: the addresses the backend's check-only call returned.
    ///   - formToken: binds the form to this code (any tab of the link may use it).
    ///   - error: why the last attempt was refused, shown above the form.
    func modeForm(_ link: ActionLink, email: String?, newEmail: String?, formToken: String, error: String?, strings: PageStrings) -> any PageModel {
        var fields = [
            HiddenField(name: "mode", value: link.mode.rawValue), HiddenField(name: "oobCode", value: link.oobCode),
            HiddenField(name: "form", value: formToken), HiddenField(name: "lang", value: strings.language),
        ]
        if let apiKey = link.apiKey { fields.append(HiddenField(name: "apiKey", value: apiKey)) }
        if let tenantID = link.tenantID { fields.append(HiddenField(name: "tenantId", value: tenantID)) }
        if let continueURL = link.continueURL { fields.append(HiddenField(name: "continueUrl", value: continueURL)) }
        if link.mode == .resetPassword {
            return ResetPasswordPage(title: strings[.resetTitle], email: email, error: error, fields: fields)
        }
        let texts = link.mode.texts
        return ConfirmActionPage(
            title: strings[texts.formTitle], body: strings[texts.formBody], button: strings[texts.formButton],
            email: email, newEmail: link.mode == .verifyAndChangeEmail ? newEmail : nil, fields: fields)
    }

    /// `pathAndQuery` with one more query parameter.
    static func withParameter(_ parameter: String, pathAndQuery: String, hasQuery: Bool) -> String {
        pathAndQuery + (hasQuery ? "&" : "?") + parameter
    }
}
