import HTTPTypes
import Hummingbird
import NIOCore

/// A response known from the request head alone: no body to read, nothing to wait for.
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
}

/// Answers the requests that need no I/O (association files, the stylesheet, and links that
/// redirect straight on, short links this replica has resolved before included) from the request
/// head alone.
///
/// ``ImmediateResponseHandler`` calls it on the event loop, before a request enters the router; the
/// router's own routes call it too, so either way gives the same answer. Requests it does not
/// answer (nil) go on to the router.
struct ImmediateResponder: Sendable {
    enum Kind: Sendable {
        case appleAssociation, androidAssociation, stylesheet, link
        /// `/<suffix>`: answered when the link is cached; its route pattern is the router's catch-all.
        case shortLink
    }

    /// How metrics name the short-link route (the router's catch-all pattern).
    static let shortLinkRoute = "/**"
    /// Single-segment paths the router serves itself, which are never short links.
    static let routerPaths = Set(HealthController<BasicRequestContext>.paths + [MetricsController<BasicRequestContext>.path])

    let files: AssociationFiles
    let stylesheet: ImmediateResponse
    let decider: LinkDecider
    let shortLinks: CachedLinkStore
    let linkEvents: LinkEventRecorder
    let metrics: LinkMetrics
    /// The fixed paths answered here (their own route patterns, as metrics count them).
    let routes: [String: Kind]

    init(configuration: LinkDomainConfiguration, files: AssociationFiles, stylesheet: [UInt8], shortLinks: CachedLinkStore,
         linkEvents: LinkEventRecorder, metrics: LinkMetrics) {
        self.shortLinks = shortLinks
        self.linkEvents = linkEvents
        self.metrics = metrics
        self.files = files
        self.stylesheet = ImmediateResponse(status: .ok, headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "public, max-age=86400"],
                                            body: ByteBuffer(bytes: stylesheet))
        self.decider = LinkDecider(configuration: configuration)
        var routes: [String: Kind] = [
            "/.well-known/apple-app-site-association": .appleAssociation,
            // iOS 9 to 12 also fetched the file from the root.
            "/apple-app-site-association": .appleAssociation,
            "/.well-known/assetlinks.json": .androidAssociation,
            "/__/static/styles.css": .stylesheet,
        ]
        for path in ActionPagesController<BasicRequestContext>.linkPaths(configuration) + ["/"] { routes[path] = .link }
        self.routes = routes
    }

    /// What `path` is, if it may be answered here.
    func kind(of path: Substring) -> Kind? {
        if let kind = routes[String(path)] { return kind }
        guard path.utf8.first == UInt8(ascii: "/"), SuffixGenerator.isPlausible(path.dropFirst()), !Self.routerPaths.contains(String(path)) else {
            return nil
        }
        return .shortLink
    }

    /// The answer to a GET or HEAD of `path`, or nil when it takes more than the head. A GET of a
    /// short link counts its events, as the router's answer does.
    func respond(to kind: Kind, method: HTTPRequest.Method, path: Substring, query: Substring?, headers: HTTPFields) -> ImmediateResponse? {
        switch kind {
        case .appleAssociation:
            return files.apple.response(ifNoneMatch: headers[.ifNoneMatch])
        case .androidAssociation:
            return files.android.response(ifNoneMatch: headers[.ifNoneMatch])
        case .stylesheet:
            return stylesheet
        case .link:
            let visitor = PlatformClassifier.classify(userAgent: headers[.userAgent], platformHint: headers[.secCHUAPlatform])
            let outcome = decider.outcome(linkPath: path, linkQuery: QueryString(query ?? ""), visitor: visitor,
                                          ownPathAndQuery: LinkDecider.ownPathAndQuery(path: path, query: query))
            return Self.straightRedirect(outcome)?.response
        case .shortLink:
            let suffix = String(path.dropFirst())
            // A link this replica has not resolved yet is read from the store by the router.
            guard let record = shortLinks.cached(suffix: suffix) else { return nil }
            let visitor = PlatformClassifier.classify(userAgent: headers[.userAgent], platformHint: headers[.secCHUAPlatform])
            let outcome = decider.outcome(linkPath: "/", linkQuery: QueryString(Substring(record.longLinkQuery)), ownQuery: QueryString(query ?? ""),
                                          visitor: visitor, ownPathAndQuery: LinkDecider.ownPathAndQuery(path: path, query: query))
            guard let (response, event) = Self.straightRedirect(outcome) else { return nil }
            if method == .get {
                for counted in [LinkEvent.click, event] {
                    metrics.count(counted, platform: visitor.platform)
                    linkEvents.count(counted, suffix: suffix, platform: visitor.platform)
                }
            }
            return response
        }
    }

    /// The redirect of a link that sends the visitor straight on, and the event a short link counts
    /// for it; nil for every outcome that needs a page.
    private static func straightRedirect(_ outcome: LinkOutcome) -> (response: ImmediateResponse, event: LinkEvent)? {
        switch outcome {
        case .action(_, .continueToApp(let url)): (LinkDecider.redirect(.seeOther, to: url), .redirectToFallback)
        case .dynamic(_, .redirect(let url, let event)): (LinkDecider.redirect(.found, to: url), event)
        default: nil
        }
    }
}
