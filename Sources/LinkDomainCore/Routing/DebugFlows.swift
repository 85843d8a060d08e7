/// Where one kind of device would go with a link, as the `?d=1` page shows it (as Dynamic Links did).
package struct DebugFlow: Equatable {
    package enum Route: Equatable {
        case action(ActionMode, RoutingDecision)
        /// `previewFirst`: the device sees the preview page before `decision`.
        case dynamic(previewFirst: Bool, DynamicLinkDecision)
        case notALink
    }

    package let platform: Platform
    package let route: Route

    package init(platform: Platform, route: Route) {
        self.platform = platform
        self.route = route
    }
}

extension LinkRouter {
    /// How the link was understood: the shape of an email action link, nil for anything else.
    package func debugShape(_ request: LinkRequest) -> LinkShape? {
        guard case .success(let link) = LinkParser.parse(path: request.linkPath, query: request.linkQuery) else { return nil }
        return link.shape
    }

    /// The same decisions the link would get, for every kind of visitor in turn.
    ///
    /// - Parameter pathAndQuery: the path and query the visitor would ask for (the debug request's
    ///   own, without `d=1`), which an Android intent opens in the app.
    package func debugFlows(linkQuery: Substring, pathAndQuery: String) -> [DebugFlow] {
        let action = LinkParser.parse(path: "/", query: linkQuery)
        let dynamic = LinkParser.parseDynamicLink(query: linkQuery)
        return Platform.debugOrder.map { platform in
            let visitor = Visitor(platform: platform)
            if case .success(let link) = action {
                return DebugFlow(platform: platform, route: .action(link.mode, decide(link, visitor: visitor)))
            }
            guard var dynamic else { return DebugFlow(platform: platform, route: .notALink) }
            let previewFirst = !dynamic.hints.skipPreviewPage && platform.isMobile
            dynamic.hints.skipPreviewPage = true
            return DebugFlow(platform: platform, route: .dynamic(previewFirst: previewFirst, decide(dynamic, visitor: visitor, pathAndQuery: pathAndQuery)))
        }
    }
}

extension Platform {
    /// The order the debug page lists devices in.
    package static let debugOrder: [Platform] = [.iOS, .iPadOS, .android, .desktop, .bot]
}
