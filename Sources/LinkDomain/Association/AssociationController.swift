import Foundation
import HTTPTypes
import Hummingbird
import LinkDomainCore
import LinkDomainStorage

/// Serves the association files from memory. The event loop usually answers these paths before
/// the router sees them (``ImmediateResponder``); these routes give the same answer otherwise.
struct AssociationController<Context: RequestContext>: Sendable {
    let files: AssociationFiles
    /// The passkey and password-manager files: each answers 404 when not configured.
    let credentials: CredentialFiles

    var routes: RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        for path in [RoutePaths.appleAssociation, RoutePaths.appleAssociationAtRoot] {
            routes.get(RouterPath(path)) { request, _ in files.apple.response(ifNoneMatch: request.headers[.ifNoneMatch]).response }
        }
        routes.get(RouterPath(RoutePaths.androidAssociation)) { request, _ in files.android.response(ifNoneMatch: request.headers[.ifNoneMatch]).response }
        for (path, document) in [(RoutePaths.webauthn, credentials.webauthn), (RoutePaths.passkeyEndpoints, credentials.passkeyEndpoints)] {
            routes.get(RouterPath(path)) { request, _ in
                guard let document else { throw HTTPError(.notFound) }
                return document.response(ifNoneMatch: request.headers[.ifNoneMatch]).response
            }
        }
        // Password managers send people here to change a password (W3C "A Well-Known URL for Changing Passwords").
        routes.get(RouterPath(RoutePaths.changePassword)) { _, _ in
            guard let url = credentials.changePasswordURL else { throw HTTPError(.notFound) }
            return Response(status: .found, headers: [.location: url, .cacheControl: "no-store"])
        }
        return routes
    }
}

extension StaticJSONDocument {
    /// Apple's CDN refetches on its own schedule; an hour keeps other caches reasonably fresh.
    static var cacheControl: String { "public, max-age=3600" }

    /// 200 with the exact bytes, or 304 when the client already holds them. Never a redirect, and the
    /// content type carries no parameters: Apple's CDN and Android's verifier both reject anything else.
    func response(ifNoneMatch: String?, cacheControl: String = Self.cacheControl) -> ImmediateResponse {
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: cacheControl, .eTag: etag]
        if let ifNoneMatch, Self.matches(ifNoneMatch, etag: etag) {
            return ImmediateResponse(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(bytes.count)
        return ImmediateResponse(status: .ok, headers: headers, body: body)
    }

    /// `If-None-Match` uses the weak comparison (RFC 9110 §13.1.2): `W/` prefixes are ignored.
    static func matches(_ condition: String, etag: String) -> Bool {
        condition.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == etag
        }
    }
}
