#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import HTTPTypes
import NIOCore

/// Answers the requests that need no I/O (association files, the stylesheet, and links that
/// redirect straight on, short links this replica has resolved before included) from the request
/// head alone.
///
/// ``ImmediateResponseHandler`` calls it on the event loop, before a request enters the router; the
/// router's own routes call it too, so either way gives the same answer. Requests it does not
/// answer (nil) go on to the router.
struct ImmediateResponder: Sendable {
    /// The request fields an answer here reads.
    struct RequestHeaders {
        var userAgent: String?
        var platformHint: String?
        var ifNoneMatch: String?

        init(userAgent: String? = nil, platformHint: String? = nil, ifNoneMatch: String? = nil) {
            self.userAgent = userAgent
            self.platformHint = platformHint
            self.ifNoneMatch = ifNoneMatch
        }

        init(_ fields: HTTPFields) {
            self.init(userAgent: fields[.userAgent], platformHint: fields[.secCHUAPlatform], ifNoneMatch: fields[.ifNoneMatch])
        }
    }

    enum Kind: Sendable {
        case appleAssociation, androidAssociation, stylesheet, link
        /// `/<suffix>`: answered when the link is cached; its route pattern is the router's catch-all.
        case shortLink
    }

    let files: AssociationFiles
    let stylesheet: ImmediateResponse
    let router: LinkRouter
    let shortLinks: CachedLinkStore
    let linkEvents: LinkEventRecorder
    let metrics: LinkMetrics
    /// The fixed paths answered here (their own route patterns, as metrics count them); a handful,
    /// compared as bytes so that a request's path never has to become a `String` to be found.
    let routes: [(path: String, kind: Kind)]

    init(configuration: LinkDomainConfiguration, files: AssociationFiles, stylesheet: [UInt8], shortLinks: CachedLinkStore,
         linkEvents: LinkEventRecorder, metrics: LinkMetrics) {
        self.shortLinks = shortLinks
        self.linkEvents = linkEvents
        self.metrics = metrics
        self.files = files
        self.stylesheet = ImmediateResponse(status: .ok, headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "public, max-age=86400"],
                                            body: ByteBuffer(bytes: stylesheet))
        self.router = LinkRouter(configuration: configuration)
        let fixed: [(String, Kind)] = [
            (RoutePaths.appleAssociation, .appleAssociation), (RoutePaths.appleAssociationAtRoot, .appleAssociation),
            (RoutePaths.androidAssociation, .androidAssociation), (RoutePaths.stylesheet, .stylesheet),
        ]
        var links: [(String, Kind)] = []
        for path in RoutePaths.actionLinkPaths(customActionPath: configuration.actionPath) + ["/"] where !fixed.contains(where: { $0.0 == path }) {
            links.append((path, .link))
        }
        self.routes = fixed + links
    }

    /// What `path` is, if it may be answered here, and its route pattern as metrics count it.
    func match(_ path: UnsafeRawBufferPointer) -> (kind: Kind, route: String)? {
        for route in routes where route.path.utf8.count == path.count {
            // The paths are literals and configuration: native strings, whose bytes are at hand.
            let equal = route.path.utf8.withContiguousStorageIfAvailable { bytes in
                guard let wanted = bytes.baseAddress, let given = path.baseAddress else { return bytes.isEmpty }
                return memcmp(wanted, given, path.count) == 0
            } ?? route.path.utf8.elementsEqual(path)
            if equal { return (route.kind, route.path) }
        }
        guard path.first == UInt8(ascii: "/") else { return nil }
        let text = String(decoding: path, as: UTF8.self)
        guard SuffixGenerator.isPlausible(text.dropFirst()), !RoutePaths.reservedSingleSegments.contains(text) else { return nil }
        return (.shortLink, RoutePaths.catchAll)
    }

    /// What `path` is, if it may be answered here.
    func kind(of path: Substring) -> Kind? {
        match(path)?.kind
    }

    func match(_ path: Substring) -> (kind: Kind, route: String)? {
        var path = path
        return path.withUTF8 { match(UnsafeRawBufferPointer($0)) }
    }

    /// The answer to a GET or HEAD of `path`, or nil when it takes more than the head. A GET of a
    /// short link counts its events, as the router's answer does.
    func respond(to kind: Kind, method: HTTPRequest.Method, path: Substring, query: Substring?, headers: RequestHeaders) -> ImmediateResponse? {
        switch answer(to: kind, method: method, path: path, query: query, headers: headers) {
        case .response(let response): response
        case .redirect(let status, let location): .redirect(status, to: location)
        case nil: nil
        }
    }

    /// What ``respond(to:method:path:query:headers:)`` answers, with redirects not yet made into
    /// responses: the event loop writes their few bytes directly.
    enum Answer {
        case response(ImmediateResponse)
        case redirect(HTTPResponse.Status, location: String)
    }

    func answer(to kind: Kind, method: HTTPRequest.Method, path: Substring, query: Substring?, headers: RequestHeaders) -> Answer? {
        switch kind {
        case .appleAssociation:
            return .response(files.apple.response(ifNoneMatch: headers.ifNoneMatch))
        case .androidAssociation:
            return .response(files.android.response(ifNoneMatch: headers.ifNoneMatch))
        case .stylesheet:
            return .response(stylesheet)
        case .link:
            let visitor = PlatformClassifier.classify(userAgent: headers.userAgent, platformHint: headers.platformHint)
            let outcome = router.route(LinkRequest(path: path, query: query), visitor: visitor)
            return Self.straightRedirect(outcome).map { .redirect($0.status, location: $0.location) }
        case .shortLink:
            let suffix = String(path.dropFirst())
            // A link this replica has not resolved yet is read from the store by the router.
            guard let record = shortLinks.cached(suffix: suffix) else { return nil }
            let visitor = PlatformClassifier.classify(userAgent: headers.userAgent, platformHint: headers.platformHint)
            let outcome = router.route(LinkRequest(storedQuery: Substring(record.longLinkQuery), requestPath: path, requestQuery: query),
                                       visitor: visitor)
            guard let (status, location, event) = Self.straightRedirect(outcome) else { return nil }
            if method == .get, visitor.isPerson {
                for counted in [LinkEvent.click, event] {
                    metrics.count(counted, platform: visitor.platform)
                    linkEvents.count(counted, suffix: suffix, platform: visitor.platform)
                }
            }
            return .redirect(status, location: location)
        }
    }

    /// The redirect of a link that sends the visitor straight on, and the event a short link counts
    /// for it; nil for every outcome that needs a page.
    private static func straightRedirect(_ outcome: LinkOutcome) -> (status: HTTPResponse.Status, location: String, event: LinkEvent)? {
        switch outcome {
        case .action(_, .continueToApp(let url)): (.seeOther, url, .redirectToFallback)
        case .dynamic(_, .redirect(let url, let event)): (.found, url, event)
        default: nil
        }
    }
}
