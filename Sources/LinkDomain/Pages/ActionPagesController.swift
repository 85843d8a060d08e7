import HTTPTypes
import Hummingbird
import LinkDomainCore
import LinkDomainStorage
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
struct ActionPagesController<Context: ClientAddressRequestContext>: Sendable {
    let pages: PageBuilder
    let renderer: PageRenderer
    let backend: any AuthBackend
    let linkStore: any LinkStore
    let linkEvents: LinkEventRecorder
    let formToken: FormToken
    let stylesheet: ImmediateResponse
    var favicon = ImmediateResponse(status: .notFound, headers: [:])
    var script = ImmediateResponse(status: .notFound, headers: [:])
    /// `/<suffix>/qr.svg` and `/<suffix>/qr.png`.
    var qrCodes: ShortLinkQRCodes?
    let customActionPath: String?
    let clock: any WallClock
    /// Takes a token from the client's rate limit before a GET asks the backend about a code:
    /// nil when allowed, else the seconds to wait.
    var admitBackendCall: @Sendable (Request, Context) async -> Int? = { _, _ in nil }
    /// Mails a link the pages ask for, after the answer (within the mail budgets); nil when no mail can be sent.
    var mailLink: (@Sendable (PageLinkMail) -> Void)?
    /// Serves `/__/demo/continue` (development only): where the demo's links lead after the action.
    var servesDemoContinuePage = false

    var router: LinkRouter { pages.router }
    var writer: LinkAnswerWriter { LinkAnswerWriter(pages: pages, renderer: renderer) }
    /// The page's language: `code` (a link's or form's `lang`), else the browser's, else the configured default.
    func language(_ request: Request, preferring code: String?) -> String {
        router.language(preferring: code, acceptLanguage: request.headers[.acceptLanguage])
    }
    var modeForms: ModeFormWriter { ModeFormWriter(pages: pages, renderer: renderer, formToken: formToken, clock: clock) }

    var routes: RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        for path in RoutePaths.actionLinkPaths(customActionPath: customActionPath) {
            routes.get(RouterPath(path)) { request, context in await page(for: request, context: context) }
        }
        routes.post(RouterPath(RoutePaths.emailAction)) { request, context in await submit(request, context: context) }
        routes.get(RouterPath(RoutePaths.actionResult)) { request, _ in resultPage(request) }
        routes.post(RouterPath(RoutePaths.resetRequest)) { request, context in await requestReset(request, client: context.clientAddress) }
        routes.post(RouterPath(RoutePaths.newLink)) { request, context in await requestNewLink(request, client: context.clientAddress) }
        routes.get(RouterPath(RoutePaths.newLink)) { request, _ in newLinkSentPage(request) }
        // Nothing is opened or spent: only the app claims a hand-off (installAttribution).
        routes.get(RouterPath(RoutePaths.handoff)) { request, _ in
            message(.handoff, language: language(request, preferring: nil))
        }
        if servesDemoContinuePage {
            routes.get(RouterPath(RoutePaths.demoContinue)) { request, _ in demoContinuePage(request) }
        }
        routes.get(RouterPath(RoutePaths.stylesheet)) { _, _ in stylesheet.response }
        routes.get(RouterPath(RoutePaths.script)) { _, _ in script.response }
        for path in [RoutePaths.favicon, RoutePaths.rootFavicon] { routes.get(RouterPath(path)) { _, _ in favicon.response } }
        // Dynamic Links long links arrive on any path of the old custom domain (`/?link=...&apn=...`),
        // short links at `/<suffix>`.
        routes.get("/") { request, context in try await legacyLink(request, context: context) }
        routes.get(RouterPath(RoutePaths.catchAll)) { request, context in
            let segments = context.parameters.getCatchAll()
            if segments.count == 1, let suffix = ShortLinkPath.suffix(ofPath: Substring(request.uri.path)) {
                return try await shortLink(request, context: context, suffix: String(suffix))
            }
            if segments.count == 2, let qrCodes, let format = ShortLinkQRCodes.Format(rawValue: String(segments[1])) {
                return try await qrCodes.image(suffix: String(segments[0]), format: format, logger: context.logger)
            }
            return try await legacyLink(request, context: context)
        }
        return routes
    }

    func legacyLink(_ request: Request, context: Context) async throws -> Response {
        guard LegacyLinkQuery.mayCarryLink(request.uri.query.map { Substring($0) }) else { throw HTTPError(.notFound) }
        return await page(for: request, context: context)
    }

    func shortLink(_ request: Request, context: Context, suffix: String) async throws -> Response {
        let record: ShortLinkRecord?
        do {
            record = try await linkStore.shortLink(suffix: suffix)
        } catch {
            context.logger.error("short link lookup failed", metadata: ["error": .string("\(error)")])
            return message(.unavailable, language: language(request, preferring: nil))
        }
        guard let record else { return try await legacyLink(request, context: context) }
        let link = LinkRequest(
            storedQuery: Substring(record.longLinkQuery), requestPath: Substring(request.uri.path),
            requestQuery: request.uri.query.map { Substring($0) })
        return await respond(to: link, request: request, context: context, suffix: suffix)
    }

    func page(for request: Request, context: Context) async -> Response {
        let link = LinkRequest(path: Substring(request.uri.path), query: request.uri.query.map { Substring($0) })
        return await respond(to: link, request: request, context: context, suffix: nil)
    }

    /// Answers a link with the router's one answer (the event loop writes the same one). Where the
    /// answer depends on the code (a person's GET of an email action), the backend's check-only
    /// call comes first and the router answers again with what it said.
    func respond(to link: LinkRequest, request: Request, context: Context, suffix: String?) async -> Response {
        let visitor = PlatformClassifier.classify(userAgent: request.headers[.userAgent], platformHint: request.headers[.secCHUAPlatform])
        var answer = router.answer(
            link, visitor: visitor, method: request.method, isShortLink: suffix != nil,
            acceptLanguage: request.headers[.acceptLanguage], host: request.head.authority)
        // `?d=1` costs more than a page (the link parsed for every platform): under the page-check budget.
        if answer.reply == .page(.debug), let wait = await admitBackendCall(request, context) {
            return tooManyRequests(wait, language: answer.language)
        }
        var info: CodeInfo?
        if case .checkCode(let pending) = answer.reply {
            let action = pending.action
            // Decided again from the link parsed once, with what the check said.
            let ask = { (facts: CodeFacts) in
                router.answer(
                    link, checked: pending, facts: facts, visitor: visitor, method: request.method, isShortLink: suffix != nil,
                    acceptLanguage: request.headers[.acceptLanguage], host: request.head.authority)
            }
            switch await check(action, request: request, context: context) {
            case .answered(let response):
                return response
            case .checked(let checked):
                info = checked
                answer = ask(checked.facts(for: action))
            case .refused(let facts):
                answer = ask(facts)
            case .notChecked(let wait):
                // Without the check, the answer the link's text gives; only the form needs the check.
                answer = ask(.unknown)
                if case .actionPage = answer.reply { return tooManyRequests(wait, language: answer.language) }
            case .failed(let error):
                // A landing or a sign-in's redirect goes on from the link's text (never a dead end
                // because a check failed); the form's page says what failed.
                answer = ask(.unknown)
                if case .actionPage(let action) = answer.reply { return failure(error, language: answer.language, context: context, link: action) }
            }
        }
        if let suffix { linkEvents.record(answer.events, suffix: suffix, platform: visitor.platform) }
        if let response = writer.response(answer, link: link, visitor: visitor, logger: context.logger) { return response.response }
        switch answer.reply {
        case .codeEnded(let action, let ending):
            return refused(ending == .expired ? .expiredCode : .invalidCode, link: action, language: answer.language)
        case .actionPage(let action):
            guard let info else { return message(.notALink, language: answer.language) }
            // After a refused password (Post/Redirect/Get), the form says why.
            let refusal = request.uri.query.flatMap { QueryString(Substring($0))[FormRefusal.parameter] }.flatMap(FormRefusal.init(rawValue:))
            let error = refusal.map { renderer.strings(answer.language)[$0.text] }
            guard let form = modeForms.response(action, info: info, language: answer.language, error: error) else {
                return refused(.invalidCode, link: action, language: answer.language)
            }
            return form.response
        default:
            return message(.notALink, language: answer.language)
        }
    }

    /// What the check of a link's code came to.
    enum CheckOutcome {
        /// The code is live.
        case checked(CodeInfo)
        /// The backend said the code cannot be used.
        case refused(CodeFacts)
        /// No check was made: the client's page checks are spent (seconds to wait).
        case notChecked(wait: Int)
        /// The backend could not say (away, timed out, refusing otherwise).
        case failed(BackendError)
        /// The result this browser reached with the code: shown again.
        case answered(Response)
    }

    /// Checks `action`'s code (never spending it), within the client's page-check budget.
    func check(_ action: ActionLink, request: Request, context: Context) async -> CheckOutcome {
        if let wait = await admitBackendCall(request, context) { return .notChecked(wait: wait) }
        do {
            return .checked(try await backend.checkCode(action.oobCode, context: BackendCallContext(apiKey: action.apiKey, tenantID: action.tenantID)))
        } catch {
            // Reopened after a success (Back, reload, the mail's link again): the success again.
            if case .rejected = error, let previous = previousResult(request, code: action.oobCode) {
                return .answered(ImmediateResponse.redirect(.seeOther, to: previous).response)
            }
            switch PageMessage(error) {
            case .expiredCode: return .refused(CodeFacts(state: .expired))
            case .invalidCode: return .refused(CodeFacts(state: .usedOrInvalid))
            default: return .failed(error)
            }
        }
    }

    func tooManyRequests(_ wait: Int, language: String) -> Response {
        var response = message(.tooManyRequests, language: language)
        response.headers[.retryAfter] = String(wait)
        return response
    }
}
