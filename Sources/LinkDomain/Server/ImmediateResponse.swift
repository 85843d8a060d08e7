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
/// redirect straight on) from the request head alone.
///
/// ``ImmediateResponseHandler`` calls it on the event loop, before a request enters the router; the
/// router's own routes call it too, so either way gives the same answer. Requests it does not
/// answer (nil) go on to the router.
struct ImmediateResponder: Sendable {
    enum Kind: Sendable {
        case appleAssociation, androidAssociation, stylesheet, link
    }

    let files: AssociationFiles
    let stylesheet: ImmediateResponse
    let decider: LinkDecider
    /// The paths answered here (their own route patterns, as metrics count them).
    let routes: [String: Kind]

    init(configuration: LinkDomainConfiguration, files: AssociationFiles, stylesheet: [UInt8]) {
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

    /// The answer to a GET or HEAD of `path`, or nil when it takes more than the head.
    func respond(to kind: Kind, path: Substring, query: Substring?, headers: HTTPFields) -> ImmediateResponse? {
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
            switch outcome {
            case .action(_, .continueToApp(let url)): return LinkDecider.redirect(.seeOther, to: url)
            case .dynamic(_, .redirect(let url, _)): return LinkDecider.redirect(.found, to: url)
            default: return nil
            }
        }
    }
}
