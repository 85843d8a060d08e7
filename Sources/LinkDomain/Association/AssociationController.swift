import Hummingbird

/// Serves the association files from memory: 200 with the exact bytes, or 304 when the client
/// already holds them. Never a redirect, and the content type carries no parameters, because
/// Apple's CDN and Android's verifier both reject anything else.
struct AssociationController<Context: RequestContext>: Sendable {
    /// Apple's CDN refetches on its own schedule; an hour keeps other caches reasonably fresh.
    static var cacheControl: String { "public, max-age=3600" }

    let files: AssociationFiles

    func addRoutes(to router: Router<Context>) {
        router.get("/.well-known/apple-app-site-association") { request, _ in serve(files.apple, for: request) }
        // iOS 9 to 12 also fetched the file from the root.
        router.get("/apple-app-site-association") { request, _ in serve(files.apple, for: request) }
        router.get("/.well-known/assetlinks.json") { request, _ in serve(files.android, for: request) }
    }

    private func serve(_ document: StaticJSONDocument, for request: Request) -> Response {
        var headers: HTTPFields = [
            .contentType: "application/json",
            .cacheControl: Self.cacheControl,
            .eTag: document.etag,
        ]
        if let condition = request.headers[.ifNoneMatch], Self.matches(condition, etag: document.etag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(document.bytes.count)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: document.bytes)))
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
