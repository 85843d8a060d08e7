import AsyncHTTPClient
import HTTPTypes
import Hummingbird
import LinkDomainCore
import LinkDomainStorage
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// Answers Firebase's sign-in helper paths from the project's origin (docs/design/auth-helper.md,
/// "The proxy"): a new request with the path and query unchanged, the origin's own `Host`, only
/// the visitor's content-negotiation fields; the origin's status, body and an allow-list of its
/// fields back. Every request has deadlines and size limits; what the origin allows to be cached
/// is kept, and served while the origin is down.
struct AuthHelperRelay: Sendable {
    /// `https://project.firebaseapp.com` (or a loopback stand-in), no trailing slash.
    let origin: String
    let client: HTTPClient
    let keptCopies: KeptCopies
    let metrics: LinkMetrics
    let inFlight = InFlightCount()

    static let requestBodyLimit = 64 << 10
    static let responseBodyLimit = 4 << 20
    /// The whole answer, connecting included: a visitor hears of a slow origin within seconds.
    static let deadline = TimeAmount.seconds(5)
    /// The visitor's fields the origin needs to answer the same; cookies, credentials and
    /// forwarding fields never leave.
    static let forwardedRequestFields: [HTTPField.Name] = [.accept, .acceptLanguage, .contentType, .userAgent, .ifNoneMatch, .ifModifiedSince]
    /// The fields of the origin's answer that come back: what describes the body, its caching,
    /// a redirect, and the page's own security and framing rules. Nothing else: fields that speak
    /// for the whole host (`Set-Cookie`, `Clear-Site-Data`, `NEL`, `Report-To`, `Alt-Svc`,
    /// `Strict-Transport-Security`, CORS grants) never reach it from another origin.
    static let passedResponseFields: Set<String> = [
        "content-type", "content-language", "content-encoding", "content-disposition", "cache-control", "expires", "etag",
        "last-modified", "vary", "location", "retry-after", "allow", "content-security-policy", "x-frame-options",
        "x-content-type-options", "referrer-policy", "cross-origin-opener-policy", "cross-origin-embedder-policy",
        "cross-origin-resource-policy", "permissions-policy",
    ]
    /// Relays under way at once; past it, 503 at once rather than a queue of 4 MiB buffers.
    static let maximumInFlight = 64

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
        // Only Firebase's query-less files are kept: a query a visitor makes up must not evict them.
        let keepable = reads && !target.contains("?") && headers[.ifNoneMatch] == nil && headers[.ifModifiedSince] == nil
        let now = ContinuousClock.now
        if reads, let copy = keptCopies.copy(for: key), copy.isFresh(at: now) {
            metrics.authHelper(.kept)
            return Self.response(copy, at: now, ifNoneMatch: headers[.ifNoneMatch])
        }
        guard inFlight.enter(limit: Self.maximumInFlight) else {
            metrics.authHelper(.failed)
            return Self.ownAnswer(.serviceUnavailable, "too many sign-in helper requests at once; try again shortly")
        }
        defer { inFlight.leave() }
        var request = HTTPClientRequest(url: origin + key)
        request.method = reads ? .GET : .POST
        for name in Self.forwardedRequestFields {
            for value in headers[values: name] { request.headers.add(name: name.rawName, value: value) }
        }
        if let body, !reads { request.body = .bytes(body) }
        do {
            let (answer, bytes) = try await Self.withDeadline(Self.deadline) { [request, client] in
                let answer = try await client.execute(request, deadline: .now() + Self.deadline, logger: logger)
                return (answer, try await answer.body.collect(upTo: Self.responseBodyLimit))
            }
            var fields = HTTPFields()
            for (name, value) in answer.headers where Self.passedResponseFields.contains(name.lowercased()) {
                if let fieldName = HTTPField.Name(name) { fields.append(HTTPField(name: fieldName, value: value)) }
            }
            if fields[.xContentTypeOptions] == nil { fields[.xContentTypeOptions] = "nosniff" }
            // Helper URLs carry OAuth codes and state after a sign-in: other sites learn the origin at most.
            if fields[.referrerPolicy] == nil { fields[.referrerPolicy] = "strict-origin-when-cross-origin" }
            let cacheControl = answer.headers["cache-control"].joined(separator: ", ")
            if keepable,
                let seconds = HelperCachePolicy.freshSeconds(
                    status: Int(answer.status.code), cacheControl: cacheControl, vary: answer.headers["vary"].joined(separator: ", "))
            {
                let copy = KeptCopies.Copy(
                    headers: fields, body: bytes, keptAt: now, freshFor: .seconds(seconds),
                    mayServeStale: HelperCachePolicy.mayServeStale(cacheControl: cacheControl))
                keptCopies.keep(copy, for: key)
            } else if reads, answer.status == .ok {
                // The origin no longer lets this be kept: the old copy goes too.
                keptCopies.remove(key)
            }
            metrics.authHelper(.fresh)
            fields[.relayedFromOrigin] = "1"
            return Response(status: HTTPResponse.Status(code: Int(answer.status.code)), headers: fields, body: ResponseBody(byteBuffer: bytes))
        } catch {
            if reads, let copy = keptCopies.copy(for: key), copy.mayServe(whileDownAt: .now) {
                metrics.authHelper(.stale)
                return Self.response(copy, at: .now, ifNoneMatch: headers[.ifNoneMatch])
            }
            metrics.authHelper(.failed)
            logger.warning(
                "the sign-in helper's origin did not answer", metadata: ["origin": .string(origin), "error": .string(Self.describe(error))])
            return Self.ownAnswer(Self.isTimeout(error) ? .gatewayTimeout : .badGateway, "the sign-in helper's origin did not answer; try again shortly")
        }
    }

    struct DeadlineExceeded: Error {}

    /// `work`, or ``DeadlineExceeded`` once `deadline` has passed, the body's reading included
    /// (async-http-client's own deadline ends when the head arrives); the loser is cancelled.
    static func withDeadline<T: Sendable>(_ deadline: TimeAmount, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(deadline.nanoseconds))
                throw DeadlineExceeded()
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw DeadlineExceeded() }
            return first
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
        if error is DeadlineExceeded { return true }
        guard let error = error as? HTTPClientError else { return false }
        return error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout
    }

    /// The error's kind, never its text (which could hold the request's URL and its query).
    private static func describe(_ error: any Error) -> String {
        (error as? HTTPClientError).map { String(describing: $0) } ?? String(describing: type(of: error))
    }
}

/// How many relays are under way, bounded.
final class InFlightCount: Sendable {
    private let count = Atomic(0)

    func enter(limit: Int) -> Bool {
        if count.add(1, ordering: .relaxed).newValue <= limit { return true }
        count.subtract(1, ordering: .relaxed)
        return false
    }

    func leave() { count.subtract(1, ordering: .relaxed) }
}
