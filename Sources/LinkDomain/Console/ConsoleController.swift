import Foundation
import HTTPTypes
import Hummingbird
import LinkDomainCore
import LinkDomainStorage
import Logging

/// `/__/console`: server-rendered pages for operators (`docs/design/console.md`). Every route but
/// the sign-in page and the stylesheet sits behind ``ConsoleAccessMiddleware``, which asks
/// ``ConsoleAccess`` who is there; every change is a form POST (Post/Redirect/Get) that must come
/// from this site with a token bound to the session and to what it does, and writes an audit line.
struct ConsoleController<Context: ConsoleRequestContext>: Sendable {
    let configuration: LinkDomainConfiguration
    let access: ConsoleAccess
    let renderer: ConsoleRenderer
    let links: ShortLinkOperations
    let admin: any LinkAdminStore & MailAdminStore
    let mailQueue: MailQueueOperations
    /// The embedded backend's accounts; nil with another backend (no Accounts section).
    let embedded: EmbeddedBackend?
    let files: AssociationFiles
    /// `doctor` against the public address, run from the association page.
    let doctor: ConsoleDoctor
    let linkEvents: LinkEventRecorder
    let router: LinkRouter
    let clock: any WallClock
    let startedAt: Int64

    static var base: String { RoutePaths.console }

    var routes: RouteCollection<Context> {
        let all = RouteCollection(context: Context.self)
        all.get(RouterPath("\(Self.base)/console.css")) { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "public, max-age=3600"],
                body: .init(byteBuffer: ConsoleRenderer.stylesheet))
        }
        all.get(RouterPath("\(Self.base)/console.js")) { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/javascript; charset=utf-8", .cacheControl: "public, max-age=3600"],
                body: .init(byteBuffer: ConsoleRenderer.script))
        }
        // Every page in the operator's language, the sign-in page and refusals included.
        let routes = all.group().add(middleware: ConsoleLanguageMiddleware(router: router))
        routes.get(RouterPath("\(Self.base)/sign-in")) { request, _ in try await signInPage(request) }
        routes.post(RouterPath("\(Self.base)/sign-in")) { request, context in try await signIn(request, context: context) }
        // Everything else needs a session, and a change its form's token: the group's middleware
        // holds both, so a route added here later cannot forget them.
        let guarded = routes.group().add(middleware: ConsoleAccessMiddleware(console: self))
        guarded.post(RouterPath("\(Self.base)/sign-out")) { request, context in
            try await change(request, context: context) { session, _ in
                // Recorded in the database: a copy of the cookie taken before is refused too, on every replica.
                do {
                    try await access.signOut(session)
                } catch {
                    return unavailable(session)
                }
                AuditLog.record(actor: session.actor, action: "console.signOut", object: "-", logger: context.logger)
                var response = redirect(to: "\(Self.base)/sign-in?done=signed-out")
                response.headers[.setCookie] = ConsoleAccess.signedOutCookie
                return response
            }
        }
        guarded.get(RouterPath(Self.base)) { request, context in try await page(request, context: context) { try await overview($0, session: $1) } }
        addLinkRoutes(to: guarded)
        addMailRoutes(to: guarded)
        addAccountRoutes(to: guarded)
        addAssociationRoutes(to: guarded)
        return all
    }

    // MARK: Access

    /// A page, for whoever ``ConsoleAccessMiddleware`` found there. A route outside its group has
    /// no visit, and is absent.
    func page(_ request: Request, context: Context, _ body: (Request, ConsoleSession) async throws -> Response) async throws -> Response {
        guard let visit = context.consoleVisit else { throw HTTPError(.notFound) }
        return try await body(request, visit.session)
    }

    /// A change, with its form: from this site, with the token its form carried, by whoever may
    /// make it (all checked by ``ConsoleAccessMiddleware`` before this runs).
    func change(_ request: Request, context: Context, _ body: (ConsoleSession, [String: String]) async throws -> Response) async throws -> Response {
        guard let visit = context.consoleVisit, let form = visit.form else { throw HTTPError(.notFound) }
        return try await body(visit.session, form)
    }

    /// The most a form may hold, but a pasted CSV import (``formLimit(path:)``).
    static var formBytes: Int { 64 * 1024 }

    /// The most a change's form may hold: a pasted CSV import, or ``formBytes``.
    static func formLimit(path: String) -> Int {
        path == "\(linksPath)/import" ? importBytes : formBytes
    }

    /// The session the request's cookie holds, with the digest its seal was verified against.
    func signedIn(_ request: Request) async throws(StoreError) -> (session: ConsoleSession, digest: String)? {
        try await access.session(cookie: request.cookies[ConsoleSessionSeal.cookieName]?.value, now: clock.nowSeconds)
    }

    func session(_ request: Request) async throws(StoreError) -> ConsoleSession? {
        try await signedIn(request)?.session
    }

    /// 503: the database that says whether a session has ended (or what a page shows) is away.
    func unavailable(_ session: ConsoleSession?) -> Response {
        var response = renderer.page(
            "console-message", title: renderer[.console], chrome: session.map { chrome($0) } ?? ConsoleChrome(),
            values: ["body": renderer[.unavailable]], status: .serviceUnavailable)
        response.headers[.retryAfter] = "5"
        return response
    }

    func chrome(_ session: ConsoleSession, _ section: ConsoleChrome.Section? = nil) -> ConsoleChrome {
        ConsoleChrome(
            current: section, sections: ConsoleChrome.Section.allCases.filter { $0 != .accounts || embedded != nil }, actor: session.actor,
            signOutToken: access.policy == .signIn ? token(session, "\(Self.base)/sign-out") : nil)
    }

    /// A form's CSRF token for the POST to `action`.
    func token(_ session: ConsoleSession, _ action: String) -> String {
        access.seal.formToken(session, action: action, now: clock.nowSeconds)
    }

    /// Each answer to a signed-in request renews the cookie's last use: the idle time counts from now.
    func renew(_ response: Response, session: ConsoleSession, digest: String) -> Response {
        guard access.policy == .signIn, response.headers[.setCookie] == nil else { return response }
        var response = response
        response.headers[.setCookie] = access.cookie(session, credentialDigest: digest, now: clock.nowSeconds)
        return response
    }

    /// Browsers say where a request comes from; a form posted from another site is refused before
    /// anything else. The origin may be the public host (behind a proxy that rewrites `Host`) or
    /// the host the request names.
    func isSameOrigin(_ request: Request) -> Bool {
        if let site = request.headers[.secFetchSite], site != "same-origin" { return false }
        guard let origin = request.headers[.origin], origin != "null" else { return true }
        guard let host = WebAddress(origin)?.host else { return false }
        let own = request.head.authority.flatMap { WebAddress("http://\($0)")?.host }
        return host == configuration.publicHost.lowercased() || host == own
    }

    func refusedForm() -> Response {
        renderer.page(
            "console-message", title: renderer[.console], chrome: ConsoleChrome(), values: ["body": renderer[.formExpired]],
            status: .forbidden)
    }

    /// A page of `section` that only says `body`: that nothing was found, that the store is
    /// unavailable, why a change was refused; with a way `back`.
    func message(_ body: String, in section: ConsoleChrome.Section, session: ConsoleSession, back: String? = nil, status: HTTPResponse.Status)
        -> Response
    {
        var values: [String: Any] = ["body": body]
        if let back { values["back"] = back }
        return renderer.page("console-message", title: renderer[section.title], chrome: chrome(session, section), values: values, status: status)
    }

    /// A search box's text as a GET form sends it: `+` is a space (a pasted link with a space
    /// around it), `%2B` a plus; at most `limit` characters.
    static func searchText(_ request: Request, _ name: String, limit: Int) -> String {
        String((QueryString.formFields(Array((request.uri.query ?? "").utf8))[name] ?? "").prefix(limit))
    }

    func formFields(_ request: Request, maximumBytes: Int = formBytes) async throws -> [String: String] {
        let body = try await request.body.collect(upTo: maximumBytes)
        return QueryString.formFields(body.readableBytesView)
    }

    func redirect(to location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
    }

    // MARK: Signing in

    private func signInPage(_ request: Request) async throws -> Response {
        guard access.policy != .closed else { throw HTTPError(.notFound) }
        if access.policy == .open { return redirect(to: Self.base) }
        if (try? await session(request)) != nil { return redirect(to: Self.base) }
        let notice: String? =
            switch request.uri.queryParameters["done"] {
            case "signed-out"?: renderer[.signedOut]
            case "session-ended"?: renderer[.sessionEnded]
            default: nil
            }
        return renderer.page(
            "console-sign-in", title: renderer[.signInTitle], chrome: ConsoleChrome(),
            values: ["csrf": signInToken], notice: notice)
    }

    /// The sign-in form has no session to bind to: its token only proves the form came from this site.
    private var signInToken: String { token(ConsoleSession(actor: "", signedInAt: 0), "\(Self.base)/sign-in") }

    private func signIn(_ request: Request, context: Context) async throws -> Response {
        // A closed console is absent to every method, as its sign-in page is.
        guard access.policy != .closed else { throw HTTPError(.notFound) }
        guard access.policy == .signIn else { return redirect(to: Self.base) }
        guard isSameOrigin(request) else { return refusedForm() }
        let form = try await formFields(request)
        guard let token = form["csrf"],
            access.seal.isValidFormToken(token, session: ConsoleSession(actor: "", signedInAt: 0), action: "\(Self.base)/sign-in", now: clock.nowSeconds)
        else { return refusedForm() }
        let name = form["name"]?.trimmingCharacters(in: .whitespaces) ?? ""
        let now = clock.nowSeconds
        let outcome: ConsoleAccess.SignIn
        do {
            outcome = try await access.signIn(name: name, password: form["password"] ?? "", client: context.clientAddress, now: now)
        } catch {
            return unavailable(nil)
        }
        switch outcome {
        case .signedIn(let session, let digest):
            AuditLog.record(actor: session.actor, action: "console.signIn", object: "-", logger: context.logger)
            var response = redirect(to: Self.base)
            response.headers[.setCookie] = access.cookie(session, credentialDigest: digest, now: now)
            return response
        case .refused:
            context.logger.notice("console sign-in refused")
            return renderer.page(
                "console-sign-in", title: renderer[.signInTitle], chrome: ConsoleChrome(),
                values: ["csrf": signInToken, "name": name], problem: renderer[.signInRefused], status: .unauthorized)
        case .tooMany(let wait):
            var response = renderer.page(
                "console-sign-in", title: renderer[.signInTitle], chrome: ConsoleChrome(),
                values: ["csrf": signInToken, "name": name], problem: renderer[.signInTooMany], status: .tooManyRequests)
            response.headers[.retryAfter] = String(wait)
            return response
        }
    }
}
