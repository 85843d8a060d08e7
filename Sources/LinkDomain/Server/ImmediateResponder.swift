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
        self.router = LinkRouter(configuration: configuration)
        var routes: [String: Kind] = [
            RoutePaths.appleAssociation: .appleAssociation,
            RoutePaths.appleAssociationAtRoot: .appleAssociation,
            RoutePaths.androidAssociation: .androidAssociation,
            RoutePaths.stylesheet: .stylesheet,
        ]
        for path in RoutePaths.actionLinkPaths(customActionPath: configuration.actionPath) + ["/"] { routes[path] = .link }
        self.routes = routes
    }

    /// What `path` is, if it may be answered here.
    func kind(of path: Substring) -> Kind? {
        if let kind = routes[String(path)] { return kind }
        guard path.utf8.first == UInt8(ascii: "/"), SuffixGenerator.isPlausible(path.dropFirst()), !RoutePaths.reservedSingleSegments.contains(String(path)) else {
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
            let outcome = router.route(LinkRequest(path: path, query: query), visitor: visitor)
            return Self.straightRedirect(outcome)?.response
        case .shortLink:
            let suffix = String(path.dropFirst())
            // A link this replica has not resolved yet is read from the store by the router.
            guard let record = shortLinks.cached(suffix: suffix) else { return nil }
            let visitor = PlatformClassifier.classify(userAgent: headers[.userAgent], platformHint: headers[.secCHUAPlatform])
            let outcome = router.route(LinkRequest(storedQuery: Substring(record.longLinkQuery), requestPath: path, requestQuery: query),
                                       visitor: visitor)
            guard let (response, event) = Self.straightRedirect(outcome) else { return nil }
            if method == .get, visitor.isPerson {
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
        case .action(_, .continueToApp(let url)): (.redirect(.seeOther, to: url), .redirectToFallback)
        case .dynamic(_, .redirect(let url, let event)): (.redirect(.found, to: url), event)
        default: nil
        }
    }
}
