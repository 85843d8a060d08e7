import HTTPTypes
import Hummingbird
import LinkDomainCore
import LinkDomainStorage
import NIOCore

/// The rest of Firebase Hosting's `/__/` (docs/design/auth-helper.md): `/__/firebase/init.json`
/// from the configuration, and, when `authHandler.origin` is set, every other path under
/// `/__/auth/` and `/__/firebase/` that is not one of LinkDomain's own routes relayed to it. The
/// router matches its literal routes first, so an own page can never be shadowed; without an
/// origin those paths stay the catch-all's (a branded 404 page).
struct AuthHelperController<Context: RequestContext>: Sendable {
    /// nil when `authHandler.origin` is not set.
    let relay: AuthHelperRelay?
    let files: CredentialFiles

    var routes: RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        routes.get(RouterPath(AuthHelperScope.firebaseInit)) { request, _ in
            files.firebaseInit.response(ifNoneMatch: request.headers[.ifNoneMatch], cacheControl: "public, max-age=600").response
        }
        guard let relay else { return routes }
        for path in [RoutePaths.authHelper, RoutePaths.firebaseHelper] {
            for method in [HTTPRequest.Method.get, .head, .post, .put, .patch, .delete, .options] {
                routes.on(RouterPath(path), method: method) { request, context in await answer(request, relay: relay, context: context) }
            }
        }
        return routes
    }

    private func answer(_ request: Request, relay: AuthHelperRelay, context: Context) async -> Response {
        let target = Substring(request.head.path ?? "")
        switch AuthHelperScope.decide(method: request.method.rawValue, target: target) {
        case .refused:
            relay.metrics.authHelper(.refused)
            return AuthHelperRelay.ownAnswer(.notFound, "there is nothing at this address")
        case .methodNotAllowed(let allowed):
            var response = AuthHelperRelay.ownAnswer(.methodNotAllowed, "the sign-in helper takes GET and HEAD (and POST at its handler)")
            response.headers[.allow] = allowed
            return response
        case .relay(let target):
            var body: ByteBuffer?
            if request.method == .post {
                do {
                    body = try await request.body.collect(upTo: AuthHelperRelay.requestBodyLimit)
                } catch {
                    return AuthHelperRelay.ownAnswer(.contentTooLarge, "the body is over 64 KiB")
                }
            }
            return await relay.answer(method: request.method, target: target, headers: request.headers, body: body, logger: context.logger)
        }
    }
}
