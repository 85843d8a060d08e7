import Foundation
import HTTPTypes
import Hummingbird
import LinkDomainCore
import LinkDomainStorage

/// Serves the association files from memory. The event loop usually answers these paths before
/// the router sees them (``ImmediateResponder``); these routes give the same answer otherwise.
struct AssociationController<Context: RequestContext>: Sendable {
    let files: AssociationFiles

    var routes: RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        for path in [RoutePaths.appleAssociation, RoutePaths.appleAssociationAtRoot] {
            routes.get(RouterPath(path)) { request, _ in files.apple.response(ifNoneMatch: request.headers[.ifNoneMatch]).response }
        }
        routes.get(RouterPath(RoutePaths.androidAssociation)) { request, _ in files.android.response(ifNoneMatch: request.headers[.ifNoneMatch]).response }
        return routes
    }
}

extension StaticJSONDocument {
    /// Apple's CDN refetches on its own schedule; an hour keeps other caches reasonably fresh.
    static var cacheControl: String { "public, max-age=3600" }

    /// 200 with the exact bytes, or 304 when the client already holds them. Never a redirect, and the
    /// content type carries no parameters: Apple's CDN and Android's verifier both reject anything else.
    func response(ifNoneMatch: String?) -> ImmediateResponse {
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: Self.cacheControl, .eTag: etag]
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
