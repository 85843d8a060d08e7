import AsyncHTTPClient
import HTTPTypes
import Hummingbird
import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore
import NIOHTTP1

/// Answers Firebase's sign-in helper paths from the project's origin (docs/design/auth-helper.md,
/// "The proxy"): a new request with the path and query unchanged, the origin's own `Host`, only
/// the visitor's content-negotiation fields; the origin's status, body and headers back, less
/// hop-by-hop fields and cookies. Every request has deadlines and size limits; what the origin
/// allows to be cached is kept, and served while the origin is down.
struct AuthHelperRelay: Sendable {
    /// `https://project.firebaseapp.com` (or a loopback stand-in), no trailing slash.
    let origin: String
    let client: HTTPClient
    let keptCopies: KeptCopies
    let metrics: LinkMetrics

    static let requestBodyLimit = 64 << 10
    static let responseBodyLimit = 4 << 20
    /// The whole answer, connecting included: a visitor hears of a slow origin within seconds.
    static let deadline = TimeAmount.seconds(5)
    /// The visitor's fields the origin needs to answer the same; cookies, credentials and
    /// forwarding fields never leave.
    static let forwardedRequestFields: [HTTPField.Name] = [.accept, .acceptLanguage, .contentType, .userAgent, .ifNoneMatch, .ifModifiedSince]
    /// Fields of the origin's answer that are its connection's, its domain's or would be ours.
    static let droppedResponseFields: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "transfer-encoding", "te", "trailer", "upgrade",
        "set-cookie", "set-cookie2", "content-length", "alt-svc", "strict-transport-security", "age",
    ]

    /// One pooled client for the helper: 2 s to connect, no retried connections, redirects passed back.
    static let sharedClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(2), read: .seconds(5))
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// The answer to a request `AuthHelperScope` relays. A HEAD is asked as a GET (so that its
    /// answer can be kept); the router drops the body.
    func answer(method: HTTPRequest.Method, target: Substring, headers: HTTPFields, body: ByteBuffer?, logger: Logger) async -> Response {
        let key = String(target)
        let reads = method == .get || method == .head
        let now = ContinuousClock.now
        if reads, let copy = keptCopies.copy(for: key), copy.isFresh(at: now) {
            metrics.authHelper(.kept)
            return Self.response(copy, at: now, ifNoneMatch: headers[.ifNoneMatch])
        }
        var request = HTTPClientRequest(url: origin + key)
        request.method = reads ? .GET : .POST
        for name in Self.forwardedRequestFields {
            for value in headers[values: name] { request.headers.add(name: name.rawName, value: value) }
        }
        if let body, !reads { request.body = .bytes(body) }
        do {
            let answer = try await client.execute(request, deadline: .now() + Self.deadline, logger: logger)
            let bytes = try await answer.body.collect(upTo: Self.responseBodyLimit)
            var fields = HTTPFields()
            for (name, value) in answer.headers where !Self.droppedResponseFields.contains(name.lowercased()) {
                if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
            }
            if reads, headers[.ifNoneMatch] == nil, headers[.ifModifiedSince] == nil,
                let seconds = HelperCachePolicy.freshSeconds(
                    status: Int(answer.status.code), cacheControl: answer.headers.first(name: "cache-control"),
                    vary: answer.headers.first(name: "vary"))
            {
                keptCopies.keep(KeptCopies.Copy(headers: fields, body: bytes, keptAt: now, freshFor: .seconds(seconds)), for: key)
            }
            metrics.authHelper(.fresh)
            fields[.relayedFromOrigin] = "1"
            return Response(status: HTTPResponse.Status(code: Int(answer.status.code)), headers: fields, body: ResponseBody(byteBuffer: bytes))
        } catch {
            if reads, let copy = keptCopies.copy(for: key) {
                metrics.authHelper(.stale)
                return Self.response(copy, at: .now, ifNoneMatch: headers[.ifNoneMatch])
            }
            metrics.authHelper(.failed)
            logger.warning(
                "the sign-in helper's origin did not answer", metadata: ["origin": .string(origin), "error": .string(Self.describe(error))])
            return Self.ownAnswer(Self.isTimeout(error) ? .gatewayTimeout : .badGateway, "the sign-in helper's origin did not answer; try again shortly")
        }
    }

    /// A kept copy as an answer, with its `Age`; 304 when the visitor holds it already.
    static func response(_ copy: KeptCopies.Copy, at now: ContinuousClock.Instant, ifNoneMatch: String?) -> Response {
        var headers = copy.headers
        headers[.age] = String(copy.age(at: now))
        headers[.relayedFromOrigin] = "1"
        if let ifNoneMatch, let etag = headers[.eTag], StaticJSONDocument.matches(ifNoneMatch, etag: etag) {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: copy.body))
    }

    /// An answer of LinkDomain's own on a helper path: plain text, with every security header the
    /// finisher gives LinkDomain's answers.
    static func ownAnswer(_ status: HTTPResponse.Status, _ text: String) -> Response {
        var headers = HTTPFields()
        if status == .badGateway || status == .gatewayTimeout || status == .serviceUnavailable { headers[.retryAfter] = "5" }
        return PlainText.response(status, "\(status.code) \(status.reasonPhrase): \(text).\n", headers: headers)
    }

    private static func isTimeout(_ error: any Error) -> Bool {
        guard let error = error as? HTTPClientError else { return false }
        return error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout
    }

    /// The error's kind, never its text (which could hold the request's URL and its query).
    private static func describe(_ error: any Error) -> String {
        (error as? HTTPClientError).map { String(describing: $0) } ?? String(describing: type(of: error))
    }
}
