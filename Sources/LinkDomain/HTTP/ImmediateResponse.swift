import HTTPTypes
import Hummingbird
import LinkDomainCore
import LinkDomainStorage
import NIOCore

/// A response known from the request head alone: no body to read, nothing to wait for. The
/// event-loop fast path writes it as it is; the router's routes answer with ``response``.
struct ImmediateResponse: Sendable, Equatable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var body: ByteBuffer?

    init(status: HTTPResponse.Status, headers: HTTPFields, body: ByteBuffer? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The same response for the router.
    var response: Response {
        Response(status: status, headers: headers, body: body.map { ResponseBody(byteBuffer: $0) } ?? ResponseBody())
    }

    /// The redirect of a link that sends the visitor straight on (never cached: it carries a code).
    static func redirect(_ status: HTTPResponse.Status, to url: String) -> ImmediateResponse {
        ImmediateResponse(status: status, headers: [.location: url, .cacheControl: "no-store"])
    }
}

/// Small `text/plain` answers, for health checks, limits and error pages alike.
enum PlainText {
    static func response(_ status: HTTPResponse.Status, _ text: String, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = headers[.cacheControl] ?? "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// 429 with `Retry-After` (seconds): a client over its rate limit, on a path no person reads.
    static func tooManyRequests(retryAfter: String?) -> Response {
        response(.tooManyRequests, "429 Too Many Requests: try again in \(retryAfter ?? "a few") s.\n", headers: retryAfter.map { [.retryAfter: $0] } ?? [:])
    }
}
