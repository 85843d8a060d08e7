/// A link as a request carries it: the link's own path and query, and the request's.
///
/// They differ for a short link, whose link is the stored long link while `?d=1` or `?web=1` and
/// the links back to this page come from the request.
package struct LinkRequest {
    package var linkPath: Substring
    package var linkQuery: Substring
    package var requestPath: Substring
    package var requestQuery: Substring?
    /// The link is the request's own query (not a short link's stored one).
    package var linkIsRequest: Bool

    /// A link that is the request itself (`/__/auth/links?link=...`, `/?link=...&apn=...`).
    package init(path: Substring, query: Substring?) {
        linkPath = path
        linkQuery = query ?? ""
        requestPath = path
        requestQuery = query
        linkIsRequest = true
    }

    /// A short link's stored long link, requested at `path` with `query`.
    package init(storedQuery: Substring, requestPath: Substring, requestQuery: Substring?) {
        linkPath = "/"
        linkQuery = storedQuery
        self.requestPath = requestPath
        self.requestQuery = requestQuery
        linkIsRequest = false
    }

    /// This request's path (one leading slash: "//host/..." would leave this site) and query, for
    /// Android intents and buttons that lead back to this page.
    package var ownPathAndQuery: String {
        "/" + requestPath.drop { $0 == "/" } + (requestQuery.map { "?\($0)" } ?? "")
    }

    /// ``ownPathAndQuery`` without the debug page's `d` parameter: the request a visitor would make.
    package var pathAndQueryWithoutDebug: String {
        let kept = (requestQuery ?? "").split(separator: "&").filter { $0 != "d" && !$0.hasPrefix("d=") }
        return "/" + requestPath.drop { $0 == "/" } + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
    }
}

/// Decides where every link goes: email actions, legacy Dynamic Links and short links alike.
///
/// It holds what the decisions read (the configured apps, the redirect policy and the public host)
/// and nothing else, so every rule is a pure function of a link and a visitor, tested without HTTP.
public struct LinkRouter: Sendable {
    public var appleApps: [AppleApp]
    public var androidApps: [AndroidApp]
    public var policy: RedirectPolicy
    /// This service's host, which Android intents send the visitor back to.
    public var publicHost: String
    /// The second host "Open in the app" leads to (`pivotBaseURL`), lower-cased; a request that
    /// arrives there was not taken by the app.
    public var pivotHost: String?
    /// The language of pages whose link and visitor name none spoken here (`pages.defaultLanguage`).
    public var defaultLanguage = "en"

    public init(appleApps: [AppleApp], androidApps: [AndroidApp], policy: RedirectPolicy, publicHost: String) {
        self.appleApps = appleApps
        self.androidApps = androidApps
        self.policy = policy
        self.publicHost = publicHost
    }

    public init(configuration: LinkDomainConfiguration) {
        self.init(
            appleApps: configuration.apple.apps, androidApps: configuration.android.apps,
            policy: RedirectPolicy(authorizedDomains: configuration.authorizedDomains), publicHost: configuration.publicHost)
        pivotHost = configuration.pivotBaseURL.flatMap { WebAddress($0)?.host.lowercased() }
        defaultLanguage = configuration.defaultLanguage
    }

    /// A page's language: the link's or form's `lang` when spoken here, else the visitor's
    /// `Accept-Language`, else ``defaultLanguage`` (docs/design/languages.md).
    public func language(preferring code: String?, acceptLanguage: String?) -> String {
        Languages.language(preferring: code, acceptLanguage: acceptLanguage, otherwise: defaultLanguage)
    }

    /// What a request for a link asks for: `?d=1` the debug page, `?web=1` to stay in the browser,
    /// else the decision for the email action or (off the email-link paths) the Dynamic Link.
    package func route(_ request: LinkRequest, visitor: Visitor, facts: CodeFacts = .unknown) -> LinkOutcome {
        routeAndPreference(request, visitor: visitor, facts: facts).outcome
    }

    /// ``route(_:visitor:facts:)``, and whether the request asked to stay in the browser (`?web=1`),
    /// which deciding again after the code's check needs.
    package func routeAndPreference(_ request: LinkRequest, visitor: Visitor, facts: CodeFacts) -> (outcome: LinkOutcome, preferWeb: Bool) {
        let linkParameters = LinkParameters(request.linkQuery)
        let ownParameters = request.linkIsRequest ? linkParameters : LinkParameters(request.requestQuery ?? "")
        if ownParameters[.debugPage] == "1" { return (.debugPage, false) }
        switch LinkParser.parse(path: request.linkPath, parameters: linkParameters) {
        case .success(let link):
            let preferWeb = ownParameters[.preferWeb] == "1"
            return (.action(link, decide(link, visitor: visitor, preferWeb: preferWeb, facts: facts)), preferWeb)
        case .failure(.notAnActionLink):
            // Email-link paths carry email actions only; elsewhere `link=` may be any Dynamic Link.
            guard !request.linkPath.utf8.starts(with: "/__/".utf8), let dynamic = LinkParser.parseDynamicLink(parameters: linkParameters) else {
                return (.notALink, false)
            }
            return (.dynamic(dynamic, decide(dynamic, visitor: visitor, pathAndQuery: request.ownPathAndQuery)), false)
        case .failure:
            return (.notALink, false)
        }
    }

    /// The rules for email actions, in order (docs/design/code-aware-pages.md):
    ///
    /// | visitor | condition | decision |
    /// |---|---|---|
    /// | bot | — | `botPage` |
    /// | any | the code is expired, used or invalid | `codeEnded` |
    /// | iOS / iPadOS | an Apple app is configured (the link's `ibi`/`ipbi` if it names one), and the visitor did not ask for the web | `appLanding` |
    /// | Android | an Android app is configured (the link's `apn` if it names one), and the visitor did not ask for the web | `appLanding` |
    /// | any | mode `signIn`, continue URL absent or refused | `signInInstructions` |
    /// | desktop | mode `signIn`, the code live and asked for by an app | `phoneOrComputer` |
    /// | any | mode `signIn` | `continueToApp` |
    /// | any | other modes | `webPage` |
    ///
    /// - Parameter facts: what the backend's check said; ``CodeFacts/unknown`` decides from the link alone.
    public func decide(_ link: ActionLink, visitor: Visitor, preferWeb: Bool = false, facts: CodeFacts = .unknown) -> RoutingDecision {
        decide(link, visitor: visitor, preferWeb: preferWeb, facts: facts, continuation: nil)
    }

    /// ``decide(_:visitor:preferWeb:facts:)``, given the link's sign-in continuation when an
    /// earlier decision made it (``PendingCheck/continuation``): the continue URL's check and the
    /// continuation depend on the link and the configuration alone.
    package func decide(_ link: ActionLink, visitor: Visitor, preferWeb: Bool, facts: CodeFacts, continuation made: String?) -> RoutingDecision {
        if visitor.platform == .bot { return .botPage }
        switch facts.state {
        case .expired: return .codeEnded(.expired)
        case .usedOrInvalid: return .codeEnded(.usedOrInvalid)
        case .live, .unknown: break
        }
        if !preferWeb, let target = appTarget(link.hints, platform: visitor.platform) {
            return .appLanding(target)
        }
        guard link.mode == .signIn else { return .webPage }
        let continuation: String
        if let made {
            continuation = made
        } else {
            guard let continueURL = link.continueURL.flatMap(policy.allowed) else { return .signInInstructions }
            continuation = Self.signInContinuation(continueURL, link: link)
        }
        if visitor.platform == .desktop, facts.state == .live, facts.askedByApp(link) {
            return .phoneOrComputer(continueURL: continuation)
        }
        return .continueToApp(continuation)
    }

    /// Whether a person's GET of a link so decided should have its code checked first: the answer
    /// may change with what the check says (never for a bot, HEAD, or a refused continue URL).
    package static func checksCode(_ decision: RoutingDecision) -> Bool {
        switch decision {
        case .appLanding, .webPage, .continueToApp: true
        case .signInInstructions, .botPage, .codeEnded, .phoneOrComputer: false
        }
    }

    /// The configured app for this platform: the one the link's hints name, or the first one when
    /// they name none.
    package func appTarget(_ hints: PlatformHints, platform: Platform) -> AppTarget? {
        switch platform {
        case .iOS, .iPadOS:
            let wanted = platform == .iPadOS ? (hints.iPadBundleID ?? hints.iOSBundleID) : hints.iOSBundleID
            guard let app = appleApps.first(where: { $0.bundleID == wanted }) ?? (wanted == nil ? appleApps.first : nil) else { return nil }
            let storeID = app.appStoreID ?? hints.iOSAppStoreID.flatMap(ConfigurationValidators.appStoreID)
            return AppTarget(kind: .apple(app), storeURL: storeID.map(AppTarget.appStoreURL))
        case .android:
            let wanted = hints.androidPackageName
            guard let app = androidApps.first(where: { $0.packageName == wanted }) ?? (wanted == nil ? androidApps.first : nil) else {
                return nil
            }
            return AppTarget(kind: .android(app), storeURL: "https://play.google.com/store/apps/details?id=\(app.packageName)")
        case .desktop, .bot:
            return nil
        }
    }

    /// An Android intent URL that opens `package` on `pathAndQuery` of this host if installed,
    /// else `fallback`.
    public func androidIntent(pathAndQuery: String, package: String, fallback: String) -> String {
        "intent://\(publicHost)\(pathAndQuery)#Intent;scheme=https;package=\(package);S.browser_fallback_url=\(ActionLinkEncoder.percentEncode(fallback));end"
    }
}
