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

    private func legacyLink(_ request: Request, context: Context) async throws -> Response {
        let query = Substring(request.uri.query ?? "")
        let parameters = QueryString(query)
        guard parameters["link"] != nil || parameters["deep_link_id"] != nil else { throw HTTPError(.notFound) }
        return await page(for: request, context: context)
    }

    private func shortLink(_ request: Request, context: Context, suffix: String) async throws -> Response {
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
    private func respond(_ request: Request, context: Context, linkPath: Substring, linkQuery: Substring, suffix: String?) async -> Response {
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

    // MARK: Dynamic Links that are not email actions

    private func dynamicLink(_ link: DynamicLink, decision: DynamicLinkDecision, request: Request, visitor: Visitor, language: String,
                             suffix: String?) async -> Response {
        let pathAndQuery = ownPathAndQuery(request)
        switch decision {
        case .socialPreview:
            return socialPage(link.hints, fallbackTitle: WebAddress(link.deepLink)?.host, language: language)
        case .previewPage(let app, let continueURL):
            let strings = renderer.table(language)
            var values: [String: Any] = ["title": link.hints.socialTitle ?? strings["preview_title"] ?? ""]
            values["description"] = link.hints.socialDescription
            values["continueURL"] = continueURL
            // The buttons lead on with the preview skipped.
            let onward = pathAndQuery + (request.uri.query == nil ? "?" : "&") + "efr=1"
            switch app?.kind {
            case .apple?:
                if let pivot = configuration.pivotBaseURL { values["openURL"] = pivot + onward }
                values["storeURL"] = app?.storeURL
                values["storeLabel"] = strings["get_app_store"]
            case .android(let android)?:
                values["openURL"] = LinkRouter.androidIntent(host: configuration.publicHost, pathAndQuery: onward, package: android.packageName,
                                                             fallback: link.hints.androidFallbackURL.flatMap(policy.allowed) ?? app?.storeURL ?? "")
                values["storeURL"] = app?.storeURL
                values["storeLabel"] = strings["get_app_play"]
            case nil:
                break
            }
            return htmlResponse(.ok, renderer.render("preview", language: language, values: values))
        case .redirect(let url, let event):
            if let suffix { record(event, suffix: suffix, visitor: visitor, request: request) }
            return LinkDecider.redirect(.found, to: url).response
        case .refused:
            return message(.badRequest, language: language, title: "error_redirect_title", body: ["error_redirect_body"])
        }
    }

    /// What crawlers (Slack, iMessage, X, Facebook, WhatsApp, LinkedIn) read to draw a preview card.
    private func socialPage(_ hints: PlatformHints, fallbackTitle: String?, language: String) -> Response {
        var values: [String: Any] = ["title": hints.socialTitle ?? fallbackTitle ?? configuration.publicHost]
        values["description"] = hints.socialDescription
        values["imageURL"] = hints.socialImageURL.flatMap { WebAddress($0)?.scheme == "https" ? $0 : nil }
        return htmlResponse(.ok, renderer.render("social", language: language, values: values))
    }

    /// `?d=1`: the link's parameters and where each kind of device would go, as Dynamic Links showed it.
    private func debugPage(linkQuery: Substring, language: String) -> Response {
        let strings = renderer.table(language)
        let parameters = QueryString(linkQuery).items.map { ["name": $0.name, "value": $0.value] }
        var flows: [[String: String]] = []
        for platform in [Platform.iOS, .iPadOS, .android, .desktop, .bot] {
            let outcome: String
            if case .success(let link) = LinkParser.parse(path: "/", query: linkQuery) {
                outcome = switch LinkRouter.decide(link, visitor: Visitor(platform: platform), appleApps: configuration.appleApps,
                                                   androidApps: configuration.androidApps, policy: policy) {
                case .appLanding(let target): "\(strings["debug_app_landing"] ?? "") (\(target.name))"
                case .continueToApp(let url): "\(strings["debug_redirect"] ?? "") \(url)"
                case .webPage: link.mode.rawValue
                case .signInInstructions: strings["signin_title"] ?? ""
                case .botPage: strings["debug_social"] ?? ""
                }
            } else if var dynamic = LinkParser.parseDynamicLink(query: linkQuery) {
                let preview = !dynamic.hints.skipPreviewPage && platform.isMobile
                dynamic.hints.skipPreviewPage = true
                let final = switch LinkRouter.decide(dynamic, visitor: Visitor(platform: platform), appleApps: configuration.appleApps,
                                                     androidApps: configuration.androidApps, policy: policy,
                                                     intentHost: configuration.publicHost, pathAndQuery: "/") {
                case .redirect(let url, _): "\(strings["debug_redirect"] ?? "") \(url)"
                case .socialPreview: strings["debug_social"] ?? ""
                case .refused, .previewPage: strings["debug_refused"] ?? ""
                }
                outcome = preview ? "\(strings["debug_preview"] ?? "") \(final)" : final
            } else {
                outcome = strings["error_not_link_title"] ?? ""
            }
            flows.append(["platform": platform.rawValue, "outcome": outcome])
        }
        let values: [String: Any] = ["title": strings["debug_title"] ?? "", "parameters": parameters, "flows": flows]
        return htmlResponse(.ok, renderer.render("debug", language: language, values: values))
    }

    /// Counts an event of a short link; only GETs count (HEAD is a probe, not a visit).
    private func record(_ event: LinkEvent, suffix: String, visitor: Visitor, request: Request) {
        guard request.method == .get else { return }
        metrics.count(event, platform: visitor.platform)
        linkEvents.count(event, suffix: suffix, platform: visitor.platform)
    }

    /// This request's path (one leading slash: "//host/..." would leave this site) and query.
    private func ownPathAndQuery(_ request: Request) -> String {
        LinkDecider.ownPathAndQuery(path: Substring(request.uri.path), query: request.uri.query.map { Substring($0) })
    }

    private func modePage(_ link: ActionLink, language: String, error: String? = nil, status: HTTPResponse.Status = .ok) async -> Response {
        let info: CodeInfo
        do {
            info = try await backend.checkCode(link.oobCode, context: BackendCallContext(apiKey: link.apiKey, tenantID: link.tenantID))
        } catch {
            return failure(error, language: language)
        }
        guard info.requestType == link.mode.requestType.rawValue else {
            return message(.badRequest, language: language, title: "error_invalid_title", body: ["error_invalid_body"])
        }
        let nonce = FormToken.newNonce()
        let token = formToken.token(mode: link.mode.rawValue, code: link.oobCode, nonce: nonce, issuedAt: now())
        var fields: [[String: String]] = [
            ["name": "mode", "value": link.mode.rawValue], ["name": "oobCode", "value": link.oobCode], ["name": "form", "value": token],
            ["name": "lang", "value": language],
        ]
        if let apiKey = link.apiKey { fields.append(["name": "apiKey", "value": apiKey]) }
        if let tenantID = link.tenantID { fields.append(["name": "tenantId", "value": tenantID]) }
        if let continueURL = link.continueURL { fields.append(["name": "continueUrl", "value": continueURL]) }
        let strings = renderer.table(language)
        let html: String
        if link.mode == .resetPassword {
            var values: [String: Any] = ["title": strings["reset_title"] ?? "", "fields": fields]
            values["email"] = info.email
            values["error"] = error
            html = renderer.render("reset-password", language: language, values: values)
        } else {
            let prefix = Self.stringPrefix(for: link.mode)
            var values: [String: Any] = [
                "title": strings["\(prefix)_title"] ?? "", "body": strings["\(prefix)_body"] ?? "", "button": strings["\(prefix)_button"] ?? "",
                "fields": fields,
            ]
            values["email"] = info.email
            if link.mode == .verifyAndChangeEmail { values["newEmail"] = info.newEmail }
            html = renderer.render("confirm-action", language: language, values: values)
        }
        var response = htmlResponse(status, html)
        response.headers[.setCookie] = cookie(nonce)
        return response
    }

    private func landing(_ target: AppTarget, link: ActionLink, request: Request, visitor: Visitor, language: String) -> Response {
        let strings = renderer.table(language)
        let pathAndQuery = ownPathAndQuery(request)
        var values: [String: Any] = ["title": strings["landing_title"] ?? ""]
        switch target.kind {
        case .apple:
            // A universal link fires only for a tap that leads to another domain: the pivot host.
            if let pivot = configuration.pivotBaseURL { values["openURL"] = pivot + pathAndQuery }
            let fallback = (visitor.platform == .iPadOS ? link.hints.iPadFallbackURL : nil) ?? link.hints.iOSFallbackURL
            values["storeURL"] = fallback.flatMap(policy.allowed) ?? target.storeURL
            values["storeLabel"] = strings[target.storeURL == nil ? "get_app_fallback" : "get_app_store"]
        case .android(let app):
            let store = link.hints.androidFallbackURL.flatMap(policy.allowed) ?? target.storeURL ?? ""
            values["openURL"] = LinkRouter.androidIntent(host: configuration.publicHost, pathAndQuery: pathAndQuery,
                                                         package: app.packageName, fallback: store)
            values["storeURL"] = store
            values["storeLabel"] = strings["get_app_play"]
        }
        if link.mode != .signIn || link.continueURL.flatMap(policy.allowed) != nil {
            values["webURL"] = pathAndQuery + (request.uri.query == nil ? "?" : "&") + "web=1"
        }
        return htmlResponse(.ok, renderer.render("landing", language: language, values: values))
    }

    // MARK: POST: spend the code

    func submit(_ request: Request) async -> Response {
        let fields: QueryString
        do {
            let body = try await request.body.collect(upTo: 16 * 1024)
            fields = QueryString(Substring(String(buffer: body).replacingOccurrences(of: "+", with: "%20")))
        } catch {
            return message(.contentTooLarge, language: "en", title: "error_generic_title", body: ["error_generic_body"])
        }
        let language = PageRenderer.language(for: fields["lang"])
        guard let modeName = fields["mode"], let mode = ActionMode(rawValue: modeName), mode != .signIn,
            let code = fields["oobCode"], !code.isEmpty, code.utf8.count <= LinkParser.maximumCodeLength
        else {
            return message(.badRequest, language: language, title: "error_not_link_title", body: ["error_not_link_body"])
        }
        guard formToken.isValid(fields["form"] ?? "", mode: modeName, code: code, nonce: cookieValue(request, FormToken.cookieName), now: now())
        else {
            return message(.forbidden, language: language, title: "error_form_title", body: ["error_form_body"])
        }
        var link = ActionLink(mode: mode, oobCode: code)
        link.apiKey = fields["apiKey"].flatMap { $0.isEmpty ? nil : $0 }
        link.tenantID = fields["tenantId"].flatMap { $0.isEmpty ? nil : $0 }
        link.continueURL = fields["continueUrl"].flatMap { $0.isEmpty ? nil : $0 }
        link.languageCode = language
        let context = BackendCallContext(apiKey: link.apiKey, tenantID: link.tenantID)
        let prefix = Self.stringPrefix(for: mode)
        do {
            if mode == .resetPassword {
                let password = fields["newPassword"] ?? ""
                if password.isEmpty { return await modePage(link, language: language, error: renderer.table(language)["password_missing"], status: .badRequest) }
                if password != fields["confirmPassword"] {
                    return await modePage(link, language: language, error: renderer.table(language)["passwords_differ"], status: .badRequest)
                }
                _ = try await backend.resetPassword(code: code, newPassword: password, context: context)
            } else {
                _ = try await backend.applyCode(code, expecting: mode.requestType.rawValue, context: context)
            }
        } catch .rejected(let refusal) where refusal.code == .weakPassword && mode == .resetPassword {
            return await modePage(link, language: language, error: renderer.table(language)["weak_password"], status: .badRequest)
        } catch {
            return failure(error, language: language)
        }
        metrics.codeSpent(mode: mode.rawValue)
        let donePrefix = "\(prefix)_done"
        let continueURL = link.continueURL.flatMap(policy.allowed)
        return message(.ok, language: language, title: "\(donePrefix)_title", body: ["\(donePrefix)_body"],
                       action: continueURL.map { ($0, "continue_button") })
    }

    // MARK: Shared

    private func failure(_ error: BackendError, language: String) -> Response {
        switch error {
        case .rejected(let refusal):
            switch refusal.code {
            case .expiredOobCode?: return message(.gone, language: language, title: "error_expired_title", body: ["error_expired_body"])
            case .invalidOobCode?: return message(.badRequest, language: language, title: "error_invalid_title", body: ["error_invalid_body"])
            case .userDisabled?: return message(.forbidden, language: language, title: "error_disabled_title", body: ["error_disabled_body"])
            case .emailNotFound?, .userNotFound?:
                return message(.notFound, language: language, title: "error_account_title", body: ["error_account_body"])
            default:
                logger.warning("backend refused an action", metadata: ["code": .string(refusal.spelling)])
                return message(.badRequest, language: language, title: "error_generic_title", body: ["error_generic_body"])
            }
        case .unreachable:
            return message(.serviceUnavailable, language: language, title: "error_unavailable_title", body: ["error_unavailable_body"])
        case .timedOut:
            return message(.gatewayTimeout, language: language, title: "error_timeout_title", body: ["error_timeout_body"])
        case .invalidResponse:
            return message(.badGateway, language: language, title: "error_bad_gateway_title", body: ["error_bad_gateway_body"])
        }
    }

    private func message(_ status: HTTPResponse.Status, language: String, title: String, body: [String],
                         action: (url: String, label: String)? = nil) -> Response {
        let strings = renderer.table(language)
        var values: [String: Any] = ["title": strings[title] ?? title, "paragraphs": body.map { strings[$0] ?? $0 }]
        if let action {
            values["actionURL"] = action.url
            values["actionLabel"] = strings[action.label] ?? action.label
        }
        return htmlResponse(status, renderer.render("message", language: language, values: values))
    }

    private func htmlResponse(_ status: HTTPResponse.Status, _ html: String) -> Response {
        Response(status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                 body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    private func cookie(_ nonce: String) -> String {
        let secure = configuration.publicBaseURL.hasPrefix("https://") ? "; Secure" : ""
        return "\(FormToken.cookieName)=\(nonce); Path=/__/auth; Max-Age=\(FormToken.lifetimeSeconds); HttpOnly; SameSite=Strict\(secure)"
    }

    private func cookieValue(_ request: Request, _ name: String) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == name { return String(parts[1]) }
            }
        }
        return nil
    }

    private func acceptLanguage(_ request: Request) -> String? {
        request.headers[.acceptLanguage]?.split(separator: ",").first.map { String($0.split(separator: ";")[0]).trimmingCharacters(in: .whitespaces) }
    }

    private func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    static func stringPrefix(for mode: ActionMode) -> String {
        switch mode {
        case .signIn: "signin"
        case .resetPassword: "reset"
        case .verifyEmail: "verify"
        case .recoverEmail: "recover"
        case .verifyAndChangeEmail: "change"
        case .revertSecondFactorAddition: "revert"
        }
    }
}

extension HTTPField.Name {
    static let secCHUAPlatform = HTTPField.Name("Sec-CH-UA-Platform")!
}
