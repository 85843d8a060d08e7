import Hummingbird
import LinkDomainCore
import LinkDomainStorage

/// Who is at the console, as ``ConsoleAccessMiddleware`` found: the session and, for a change,
/// its form (its token already checked).
struct ConsoleVisit: Sendable {
    let session: ConsoleSession
    /// A change's fields; nil for a page.
    let form: [String: String]?
}

/// A request context the console's access middleware can tell who is there.
protocol ConsoleRequestContext: ClientAddressRequestContext {
    var consoleVisit: ConsoleVisit? { get set }
}

/// Every console route but the sign-in page and the stylesheet sits in the group behind this
/// middleware: a closed console is absent (404); a page needs a session (else the sign-in page);
/// a change must come from this site, with a session and the token its form carried for that
/// session and action (else refused, before its handler runs). A route added to the group later is
/// guarded without a word of its own, and a handler learns who is there only from the visit this
/// puts in the context (``ConsoleController/page(_:context:_:)``), which nothing else fills.
struct ConsoleAccessMiddleware<Context: ConsoleRequestContext>: RouterMiddleware {
    let console: ConsoleController<Context>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let access = console.access
        guard access.policy != .closed else { throw HTTPError(.notFound) }
        let isChange = request.method != .get && request.method != .head
        if isChange, !console.isSameOrigin(request) { return console.refusedForm() }
        let found: (session: ConsoleSession, digest: String)?
        do {
            found = try await console.signedIn(request)
        } catch {
            // Whether the session has ended cannot be said: 503 to try again, never a 500.
            return console.unavailable(nil)
        }
        guard let (session, digest) = found else {
            return console.redirect(to: "\(ConsoleController<Context>.base)/sign-in" + (isChange ? "?done=session-ended" : ""))
        }
        var context = context
        if isChange {
            let form = try await console.formFields(request, maximumBytes: ConsoleController<Context>.formLimit(path: request.uri.path))
            guard let token = form["csrf"], access.seal.isValidFormToken(token, session: session, action: request.uri.path, now: console.clock.nowSeconds)
            else { return console.refusedForm() }
            context.consoleVisit = ConsoleVisit(session: session, form: form)
        } else {
            context.consoleVisit = ConsoleVisit(session: session, form: nil)
        }
        do {
            return console.renew(try await next(request, context), session: session, digest: digest)
        } catch is StoreError {
            // A database that cannot say what a page shows is 503 to try again, never a 500.
            return console.unavailable(session)
        }
    }
}
