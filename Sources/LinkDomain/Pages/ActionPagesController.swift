import HTTPTypes
import Hummingbird
import Logging

/// The pages a mail recipient meets: `/__/auth/links`, `/__/auth/action` (and a custom action
/// path, the emulator's `/emulator/action`), legacy Dynamic Links on any path, and short links.
///
/// A thin controller: ``LinkRouter`` decides, ``PageBuilder`` builds the page's model,
/// ``PageRenderer`` fills its template; this type only reads the request and does the I/O.
///
/// GET and HEAD never spend a code: GET at most checks it (the backend's check-only call), HEAD
/// does not even that. Codes are spent only by a POST from a page's own form, which carries a token
/// bound to that code; the POST answers with a redirect to the signed result page.
struct ActionPagesController<Context: RequestContext>: Sendable {
    let pages: PageBuilder
    let renderer: PageRenderer
    let backend: any AuthBackend
    let linkStore: any LinkStore
    let linkEvents: LinkEventRecorder
    let metrics: LinkMetrics
    let formToken: FormToken
    let stylesheet: ImmediateResponse
    var favicon = ImmediateResponse(status: .notFound, headers: [:])
    let customActionPath: String?
    let clock: any WallClock
    /// Takes a token from the client's rate limit before a GET asks the backend about a code:
    /// nil when allowed, else the seconds to wait.
    var admitBackendCall: @Sendable (Request, Context) async -> Int? = { _, _ in nil }
    /// Mails a password-reset link to an address (`email`, `language`), when mail is on; true when one went.
    /// Mails a reset link: the address, the language, and the asking client's address (for its mail budget).
    var requestPasswordReset: (@Sendable (String, String, String) async -> Bool)?
    /// The caller's address as the abuse limits see it.
    var clientAddress: @Sendable (Request, Context) -> String = { _, _ in "" }

    var router: LinkRouter { pages.router }

    var routes: RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        for path in RoutePaths.actionLinkPaths(customActionPath: customActionPath) {
            routes.get(RouterPath(path)) { request, context in await page(for: request, context: context) }
        }
        routes.post(RouterPath(RoutePaths.emailAction)) { request, context in await submit(request, context: context) }
        routes.get(RouterPath(RoutePaths.actionResult)) { request, _ in resultPage(request) }
        routes.post(RouterPath(RoutePaths.resetRequest)) { request, context in await requestReset(request, client: clientAddress(request, context)) }
        routes.get(RouterPath(RoutePaths.stylesheet)) { _, _ in stylesheet.response }
        for path in [RoutePaths.favicon, RoutePaths.rootFavicon] { routes.get(RouterPath(path)) { _, _ in favicon.response } }
        // Dynamic Links long links arrive on any path of the old custom domain (`/?link=...&apn=...`),
        // short links at `/<suffix>`.
        routes.get("/") { request, context in try await legacyLink(request, context: context) }
        routes.get(RouterPath(RoutePaths.catchAll)) { request, context in
            let segments = context.parameters.getCatchAll()
            if segments.count == 1, let suffix = segments.first { return try await shortLink(request, context: context, suffix: String(suffix)) }
            return try await legacyLink(request, context: context)
        }
        return routes
    }

    func legacyLink(_ request: Request, context: Context) async throws -> Response {
        let parameters = QueryString(Substring(request.uri.query ?? ""))
        guard parameters["link"] != nil || parameters["deep_link_id"] != nil else { throw HTTPError(.notFound) }
        return await page(for: request, context: context)
    }

    func shortLink(_ request: Request, context: Context, suffix: String) async throws -> Response {
        guard SuffixGenerator.isPlausible(Substring(suffix)) else { return try await legacyLink(request, context: context) }
        let record: ShortLinkRecord?
        do {
            record = try await linkStore.shortLink(suffix: suffix)
        } catch {
            context.logger.error("short link lookup failed", metadata: ["error": .string("\(error)")])
            return message(.unavailable, language: "en")
        }
        guard let record else { return try await legacyLink(request, context: context) }
        let link = LinkRequest(storedQuery: Substring(record.longLinkQuery), requestPath: Substring(request.uri.path),
                               requestQuery: request.uri.query.map { Substring($0) })
        return await respond(to: link, request: request, context: context, suffix: suffix)
    }

    func page(for request: Request, context: Context) async -> Response {
        let link = LinkRequest(path: Substring(request.uri.path), query: request.uri.query.map { Substring($0) })
        return await respond(to: link, request: request, context: context, suffix: nil)
    }

    /// Answers a link: the router's decision, then the page or redirect for it.
    func respond(to link: LinkRequest, request: Request, context: Context, suffix: String?) async -> Response {
        let visitor = PlatformClassifier.classify(userAgent: request.headers[.userAgent], platformHint: request.headers[.secCHUAPlatform])
        let outcome = router.route(link, visitor: visitor)
        if let suffix, outcome != .debugPage { record(.click, suffix: suffix, visitor: visitor, request: request) }
        // The page language when the link is not an email action (an action link names its own).
        let language = { Languages.language(for: QueryString(link.linkQuery)["lang"] ?? acceptLanguage(request)) }
        switch outcome {
        case .debugPage:
            let strings = renderer.strings(language())
            return html(.ok, pages.debug(link, strings: strings), strings: strings)
        case .notALink:
            return message(.notALink, language: language())
        case .dynamic(let dynamic, let decision):
            return dynamicLink(dynamic, decision: decision, link: link, request: request, visitor: visitor, language: language(), suffix: suffix)
        case .action(let action, let decision):
            return await actionLink(action, decision: decision, link: link, request: request, context: context, visitor: visitor, suffix: suffix)
        }
    }

    func actionLink(_ action: ActionLink, decision: RoutingDecision, link: LinkRequest, request: Request, context: Context, visitor: Visitor,
                    suffix: String?) async -> Response {
        let language = Languages.language(for: action.languageCode ?? acceptLanguage(request))
        switch decision {
        case .botPage:
            if !action.hints.isEmpty, action.hints.socialTitle != nil {
                return html(.ok, pages.social(action.hints, fallbackTitle: nil), strings: renderer.strings(language))
            }
            return message(.neutral, language: language)
        case .appLanding(let target):
            if let suffix { record(.redirectToApp, suffix: suffix, visitor: visitor, request: request) }
            let strings = renderer.strings(language)
            return html(.ok, pages.landing(target, link: action, visitor: visitor, request: link, strings: strings), strings: strings)
        case .continueToApp(let url):
            if let suffix { record(.redirectToFallback, suffix: suffix, visitor: visitor, request: request) }
            return ImmediateResponse.redirect(.seeOther, to: url).response
        case .signInInstructions:
            if let continueURL = action.continueURL {
                context.logger.notice("continue URL refused: host not in authorizedDomains",
                                      metadata: ["host": .string(WebAddress(continueURL)?.host ?? "(not an http(s) URL)")])
                return message(.redirectRefused, language: language)
            }
            return message(.signInInstructions, language: language)
        case .webPage:
            // HEAD is answered without asking the backend anything.
            if request.method == .head { return message(.neutral, language: language) }
            if let wait = await admitBackendCall(request, context) { return PlainText.tooManyRequests(wait: wait) }
            return await modePage(action, language: language, context: context)
        }
    }

    /// Counts an event of a short link; only people's GETs count (HEAD is a probe, and a chat app's
    /// preview or a crawler is not a click).
    func record(_ event: LinkEvent, suffix: String, visitor: Visitor, request: Request) {
        guard request.method == .get, visitor.isPerson else { return }
        metrics.count(event, platform: visitor.platform)
        linkEvents.count(event, suffix: suffix, platform: visitor.platform)
    }
}
