import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// `/__/console`: server-rendered pages for operators (`docs/design/console.md`). Every page asks
/// ``ConsoleAccess`` who is there; every change is a form POST (Post/Redirect/Get) that must come
/// from this site with a token bound to the session and to what it does, and writes an audit line.
struct ConsoleController<Context: RequestContext>: Sendable {
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
    /// The caller's address as the abuse limits see it.
    var clientAddress: @Sendable (Request, Context) -> String = { _, _ in "" }

    static var base: String { RoutePaths.console }

    var routes: RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        routes.get(RouterPath("\(Self.base)/console.css")) { _, _ in
            Response(status: .ok, headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "public, max-age=3600"],
                     body: .init(byteBuffer: ConsoleRenderer.stylesheet))
        }
        routes.get(RouterPath("\(Self.base)/sign-in")) { request, _ in try await signInPage(request) }
        routes.post(RouterPath("\(Self.base)/sign-in")) { request, context in try await signIn(request, context: context) }
        routes.post(RouterPath("\(Self.base)/sign-out")) { request, context in
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
        routes.get(RouterPath(Self.base)) { request, context in try await page(request, context: context) { try await overview($0, session: $1) } }
        addLinkRoutes(to: routes)
        addMailRoutes(to: routes)
        addAccountRoutes(to: routes)
        addAssociationRoutes(to: routes)
        return routes
    }

    // MARK: Access

    /// A page for whoever may see it: the sign-in page's redirect otherwise (404 when the console is off).
    func page(_ request: Request, context: Context, _ body: (Request, ConsoleSession) async throws -> Response) async throws -> Response {
        guard access.policy != .closed else { throw HTTPError(.notFound) }
        return try await withSession(request, orElse: redirect(to: "\(Self.base)/sign-in")) { session in try await body(request, session) }
    }

    /// A change: from this site only, with the token its form carried, by whoever may make it.
    func change(_ request: Request, context: Context, maximumBytes: Int = 64 * 1024, _ body: (ConsoleSession, [String: String]) async throws -> Response)
        async throws -> Response
    {
        guard access.policy != .closed else { throw HTTPError(.notFound) }
        guard isSameOrigin(request) else { return refusedForm() }
        return try await withSession(request, orElse: redirect(to: "\(Self.base)/sign-in?done=session-ended")) { session in
            let form = try await formFields(request, maximumBytes: maximumBytes)
            guard let token = form["csrf"], access.seal.isValidFormToken(token, session: session, action: request.uri.path, now: clock.nowSeconds) else {
                return refusedForm()
            }
            return try await body(session, form)
        }
    }

    /// `body` for the request's session, its answer renewing the cookie; `orElse` without one. A
    /// database that cannot say (whether the session has ended, or what a page shows: the accounts
    /// section included) is 503 to try again, never a 500.
    private func withSession(_ request: Request, orElse signedOut: @autoclosure () -> Response,
                             _ body: (ConsoleSession) async throws -> Response) async throws -> Response {
        let found: (session: ConsoleSession, digest: String)?
        do {
            found = try await access.session(cookie: request.cookies[ConsoleSessionSeal.cookieName]?.value, now: clock.nowSeconds)
        } catch {
            return unavailable(nil)
        }
        guard let (session, digest) = found else { return signedOut() }
        do {
            return renew(try await body(session), session: session, digest: digest)
        } catch is StoreError {
            return unavailable(session)
        }
    }

    func session(_ request: Request) async throws(StoreError) -> ConsoleSession? {
        try await access.session(cookie: request.cookies[ConsoleSessionSeal.cookieName]?.value, now: clock.nowSeconds)?.session
    }

    /// 503: the database that says whether a session has ended (or what a page shows) is away.
    func unavailable(_ session: ConsoleSession?) -> Response {
        var response = renderer.page("console-message", title: renderer[.console], chrome: session.map { chrome($0) } ?? ConsoleChrome(),
                                     values: ["body": renderer[.unavailable]], status: .serviceUnavailable)
        response.headers[.retryAfter] = "5"
        return response
    }

    func chrome(_ session: ConsoleSession, _ section: ConsoleChrome.Section? = nil) -> ConsoleChrome {
        ConsoleChrome(current: section, sections: ConsoleChrome.Section.allCases.filter { $0 != .accounts || embedded != nil }, actor: session.actor,
                      signOutToken: access.policy == .signIn ? token(session, "\(Self.base)/sign-out") : nil)
    }

    /// A form's CSRF token for the POST to `action`.
    func token(_ session: ConsoleSession, _ action: String) -> String {
        access.seal.formToken(session, action: action, now: clock.nowSeconds)
    }

    /// Each answer to a signed-in request renews the cookie's last use: the idle time counts from now.
    private func renew(_ response: Response, session: ConsoleSession, digest: String) -> Response {
        guard access.policy == .signIn, response.headers[.setCookie] == nil else { return response }
        var response = response
        response.headers[.setCookie] = access.cookie(session, credentialDigest: digest, now: clock.nowSeconds)
        return response
    }

    /// Browsers say where a request comes from; a form posted from another site is refused before
    /// anything else. The origin may be the public host (behind a proxy that rewrites `Host`) or
    /// the host the request names.
    private func isSameOrigin(_ request: Request) -> Bool {
        if let site = request.headers[.secFetchSite], site != "same-origin" { return false }
        guard let origin = request.headers[.origin], origin != "null" else { return true }
        guard let host = WebAddress(origin)?.host else { return false }
        let own = request.head.authority.flatMap { WebAddress("http://\($0)")?.host }
        return host == configuration.publicHost.lowercased() || host == own
    }

    private func refusedForm() -> Response {
        renderer.page("console-message", title: renderer[.console], chrome: ConsoleChrome(), values: ["body": renderer[.formExpired]],
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

    func formFields(_ request: Request, maximumBytes: Int = 64 * 1024) async throws -> [String: String] {
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
        let notice: String? = switch request.uri.queryParameters["done"] {
        case "signed-out"?: renderer[.signedOut]
        case "session-ended"?: renderer[.sessionEnded]
        default: nil
        }
        return renderer.page("console-sign-in", title: renderer[.signInTitle], chrome: ConsoleChrome(),
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
            outcome = try await access.signIn(name: name, password: form["password"] ?? "", client: clientAddress(request, context), now: now)
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
            return renderer.page("console-sign-in", title: renderer[.signInTitle], chrome: ConsoleChrome(),
                                 values: ["csrf": signInToken, "name": name], problem: renderer[.signInRefused], status: .unauthorized)
        case .tooMany(let wait):
            var response = renderer.page("console-sign-in", title: renderer[.signInTitle], chrome: ConsoleChrome(),
                                         values: ["csrf": signInToken, "name": name], problem: renderer[.signInTooMany], status: .tooManyRequests)
            response.headers[.retryAfter] = String(wait)
            return response
        }
    }
}
