import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// The pages a mail recipient meets: `/__/auth/links`, `/__/auth/action` (and a custom action
/// path, the emulator's `/emulator/action`, and legacy Dynamic Links on any path).
///
/// GET and HEAD never spend a code: GET at most checks it (the backend's check-only call), HEAD
/// does not even that. Codes are spent only by a POST from a page's own form, which carries a token
/// bound to that page, that code and that browser.
struct ActionPagesController<Context: RequestContext>: Sendable {
    let configuration: LinkDomainConfiguration
    let backend: any AuthBackend
    let linkStore: any LinkStore
    let linkEvents: LinkEventRecorder
    let metrics: LinkMetrics
    let renderer: PageRenderer
    let formToken: FormToken
    let decider: LinkDecider
    let stylesheet: ImmediateResponse
    let logger: Logger
    /// Takes a token from the client's rate limit before a GET asks the backend about a code:
    /// nil when allowed, else the seconds to wait.
    var admitBackendCall: @Sendable (Request, Context) async -> Int? = { _, _ in nil }

    var policy: RedirectPolicy { decider.policy }

    /// The email-link paths: Firebase's two, the emulator's, and a custom action path.
    static func linkPaths(_ configuration: LinkDomainConfiguration) -> [String] {
        ["/__/auth/links", "/__/auth/action", "/emulator/action"] + (configuration.actionPath.map { [$0] } ?? [])
    }

    func addRoutes(to router: Router<Context>) {
        for path in Self.linkPaths(configuration) {
            router.get(RouterPath(path)) { request, context in await page(for: request, context: context) }
        }
        router.post("/__/auth/action") { request, _ in await submit(request) }
        router.get("/__/static/styles.css") { _, _ in stylesheet.response }
        // Dynamic Links long links arrive on any path of the old custom domain (`/?link=...&apn=...`),
        // short links at `/<suffix>`.
        router.get("/") { request, context in try await legacyLink(request, context: context) }
        router.get("/**") { request, context in
            let segments = context.parameters.getCatchAll()
            if segments.count == 1, let suffix = segments.first { return try await shortLink(request, context: context, suffix: String(suffix)) }
            return try await legacyLink(request, context: context)
        }
    }

    func legacyLink(_ request: Request, context: Context) async throws -> Response {
        let query = Substring(request.uri.query ?? "")
        let parameters = QueryString(query)
        guard parameters["link"] != nil || parameters["deep_link_id"] != nil else { throw HTTPError(.notFound) }
        return await page(for: request, context: context)
    }

    func shortLink(_ request: Request, context: Context, suffix: String) async throws -> Response {
        guard SuffixGenerator.isPlausible(Substring(suffix)) else { return try await legacyLink(request, context: context) }
        let record: ShortLinkRecord?
        do {
            record = try await linkStore.shortLink(suffix: suffix)
        } catch {
            logger.error("short link lookup failed", metadata: ["error": .string("\(error)")])
            return message(.serviceUnavailable, language: "en", title: "error_unavailable_title", body: ["error_unavailable_body"])
        }
        guard let record else { return try await legacyLink(request, context: context) }
        return await respond(request, context: context, linkPath: "/", linkQuery: Substring(record.longLinkQuery), suffix: suffix)
    }

    // MARK: GET: landing, redirect or the page for the mode

    func page(for request: Request, context: Context) async -> Response {
        await respond(request, context: context, linkPath: Substring(request.uri.path), linkQuery: Substring(request.uri.query ?? ""), suffix: nil)
    }

    /// Answers a link: `linkQuery` is the link's own query (a short link's stored long link, or the
    /// request's), while the request's own path and query build the links back to this page.
    func respond(_ request: Request, context: Context, linkPath: Substring, linkQuery: Substring, suffix: String?) async -> Response {
        let visitor = PlatformClassifier.classify(userAgent: request.headers[.userAgent], platformHint: request.headers[.secCHUAPlatform])
        let ownQuery = request.uri.query ?? ""
        let linkParameters = QueryString(linkQuery)
        let outcome = decider.outcome(linkPath: linkPath, linkQuery: linkParameters,
                                      ownQuery: linkQuery == ownQuery ? nil : QueryString(Substring(ownQuery)),
                                      visitor: visitor, ownPathAndQuery: ownPathAndQuery(request))
        if let suffix, outcome != .debugPage { record(.click, suffix: suffix, visitor: visitor, request: request) }
        // The page language when the link is not an email action (an action link names its own).
        let language = { PageRenderer.language(for: linkParameters["lang"] ?? acceptLanguage(request)) }
        let link: ActionLink
        let decision: RoutingDecision
        switch outcome {
        case .debugPage:
            return debugPage(linkQuery: linkQuery, language: language())
        case .notALink:
            return message(.badRequest, language: language(), title: "error_not_link_title", body: ["error_not_link_body"])
        case .dynamic(let dynamic, let decision):
            return await dynamicLink(dynamic, decision: decision, request: request, visitor: visitor, language: language(), suffix: suffix)
        case .action(let parsed, let decided):
            link = parsed
            decision = decided
        }
        let pageLanguage = PageRenderer.language(for: link.languageCode ?? acceptLanguage(request))
        switch decision {
        case .botPage:
            if !link.hints.isEmpty, link.hints.socialTitle != nil { return socialPage(link.hints, fallbackTitle: nil, language: pageLanguage) }
            return message(.ok, language: pageLanguage, title: "bot_title", body: ["bot_body"])
        case .appLanding(let target):
            if let suffix { record(.redirectToApp, suffix: suffix, visitor: visitor, request: request) }
            return landing(target, link: link, request: request, visitor: visitor, language: pageLanguage)
        case .continueToApp(let url):
            if let suffix { record(.redirectToFallback, suffix: suffix, visitor: visitor, request: request) }
            return LinkDecider.redirect(.seeOther, to: url).response
        case .signInInstructions:
            if let continueURL = link.continueURL {
                logger.notice("continue URL refused: host not in authorizedDomains",
                              metadata: ["host": .string(WebAddress(continueURL)?.host ?? "(not an http(s) URL)")])
                return message(.badRequest, language: pageLanguage, title: "error_redirect_title", body: ["error_redirect_body"])
            }
            return message(.ok, language: pageLanguage, title: "signin_title", body: ["signin_body"])
        case .webPage:
            // HEAD is answered without asking the backend anything.
            if request.method == .head { return message(.ok, language: pageLanguage, title: "bot_title", body: ["bot_body"]) }
            if let wait = await admitBackendCall(request, context) { return AbuseLimitsMiddleware.tooManyRequests(wait: wait) }
            return await modePage(link, language: pageLanguage)
        }
    }

    /// Counts an event of a short link; only GETs count (HEAD is a probe, not a visit).
    func record(_ event: LinkEvent, suffix: String, visitor: Visitor, request: Request) {
        guard request.method == .get else { return }
        metrics.count(event, platform: visitor.platform)
        linkEvents.count(event, suffix: suffix, platform: visitor.platform)
    }

    /// This request's path (one leading slash: "//host/..." would leave this site) and query.
    func ownPathAndQuery(_ request: Request) -> String {
        LinkDecider.ownPathAndQuery(path: Substring(request.uri.path), query: request.uri.query.map { Substring($0) })
    }
}

extension HTTPField.Name {
    static let secCHUAPlatform = HTTPField.Name("Sec-CH-UA-Platform")!
}
