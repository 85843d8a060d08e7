import HTTPTypes
import Hummingbird

/// What a link asks for, decided from the link and the visitor alone (no backend, no storage).
///
/// The pages and the event-loop fast path (``ImmediateResponder``) both start here, so a redirect
/// answered either way is the same redirect.
enum LinkOutcome: Equatable {
    /// `?d=1` on the request: the debug page.
    case debugPage
    case action(ActionLink, RoutingDecision)
    case dynamic(DynamicLink, DynamicLinkDecision)
    /// Neither an email action nor (off the email-link paths) a Dynamic Link.
    case notALink
}

/// The configuration that link decisions read.
struct LinkDecider: Sendable {
    let appleApps: [AppleApp]
    let androidApps: [AndroidApp]
    let policy: RedirectPolicy
    let publicHost: String

    init(configuration: LinkDomainConfiguration) {
        appleApps = configuration.appleApps
        androidApps = configuration.androidApps
        policy = RedirectPolicy(authorizedDomains: configuration.authorizedDomains)
        publicHost = configuration.publicHost
    }

    /// - Parameters:
    ///   - linkPath, linkQuery: the link's own path and query (a short link's stored long link, or the request's).
    ///   - ownQuery: the request's query (`d=1` for the debug page, `web=1` to stay in the browser); nil when it is `linkQuery`.
    ///   - ownPathAndQuery: the request's path and query, for Android intents back to this page.
    func outcome(linkPath: Substring, linkQuery: QueryString, ownQuery: QueryString? = nil, visitor: Visitor,
                 ownPathAndQuery: @autoclosure () -> String) -> LinkOutcome
    {
        let ownQuery = ownQuery ?? linkQuery
        if ownQuery["d"] == "1" { return .debugPage }
        switch LinkParser.parse(path: linkPath, parameters: linkQuery) {
        case .success(let link):
            return .action(link, LinkRouter.decide(link, visitor: visitor, appleApps: appleApps, androidApps: androidApps, policy: policy,
                                                   preferWeb: ownQuery["web"] == "1"))
        case .failure(.notAnActionLink):
            // Email-link paths carry email actions only; elsewhere `link=` may be any Dynamic Link.
            guard !linkPath.utf8.starts(with: "/__/".utf8), let dynamic = LinkParser.parseDynamicLink(parameters: linkQuery) else { return .notALink }
            return .dynamic(dynamic, LinkRouter.decide(dynamic, visitor: visitor, appleApps: appleApps, androidApps: androidApps, policy: policy,
                                                      intentHost: publicHost, pathAndQuery: ownPathAndQuery()))
        case .failure:
            return .notALink
        }
    }

    /// This request's path (one leading slash: "//host/..." would leave this site) and query.
    static func ownPathAndQuery(path: Substring, query: Substring?) -> String {
        "/" + path.drop { $0 == "/" } + (query.map { "?\($0)" } ?? "")
    }

    /// The redirect a link answers with when it sends the visitor straight on.
    static func redirect(_ status: HTTPResponse.Status, to url: String) -> ImmediateResponse {
        ImmediateResponse(status: status, headers: [.location: url, .cacheControl: "no-store"])
    }
}
