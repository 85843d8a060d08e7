/// The `utm_*` values a Dynamic Link carried for the app's analytics.
package struct UTMValues: Sendable, Equatable {
    package var source: String?
    package var medium: String?
    package var campaign: String?
    package var term: String?
    package var content: String?

    package init(_ query: QueryString) {
        // Campaign text, read as form text (`+` a space) as Google's analytics read it.
        source = query.text("utm_source")
        medium = query.text("utm_medium")
        campaign = query.text("utm_campaign")
        term = query.text("utm_term")
        content = query.text("utm_content")
    }
}

/// A link an app was opened with (or installed through), resolved as the Dynamic Links SDK did.
package struct ResolvedAppLink: Sendable, Equatable {
    /// The link as the app sent it.
    package var requestedLink: String
    /// The long link: a short link expanded, any other link itself.
    package var resolvedLink: String
    /// What the app should open: the long link's `link`, or an email action link itself (the app's
    /// Auth SDK reads its code).
    package var deepLink: String
    /// `imv`: the app version the link needs.
    package var minimumAppVersion: String?
    package var utm: UTMValues
    /// The short link's suffix, when it was one: its statistics count the app's events.
    package var suffix: String?
    /// The apps the long link names (`ibi`, `ipbi`, `apn`): only their opens count in its statistics.
    package var apps = AppIDs()
}

/// The apps a Dynamic Link names for each platform.
package struct AppIDs: Sendable, Equatable {
    package var apple: Set<String> = []
    package var android: Set<String> = []

    package init() {}

    package init(_ parameters: QueryString) {
        apple = Set([parameters["ibi"], parameters["ipbi"]].compactMap { $0 }.filter { !$0.isEmpty })
        android = Set([parameters["apn"]].compactMap { $0 }.filter { !$0.isEmpty })
    }

    /// Whether the link names `appID` on `platform`.
    package func names(_ appID: String, on platform: Platform) -> Bool {
        switch platform {
        case .iOS, .iPadOS: apple.contains(appID)
        case .android: android.contains(appID)
        case .desktop, .bot: false
        }
    }
}

/// What kind of link of this domain an app holds: pure, so every rule is tested without a store.
package struct AppLinkResolver: Sendable {
    /// The hosts links of this domain use: the public host and the pivot host.
    package let hosts: Set<String>
    /// This service's origin, for a short link's long form.
    package let publicBaseURL: String
    /// Where email action links arrive (Firebase's two paths, the emulator's, a custom one).
    package let actionPaths: Set<String>
    /// The pages' redirect policy: a deep link the pages would not follow is not handed to the app either.
    package let policy: RedirectPolicy

    package enum Shape: Equatable {
        case shortLink(suffix: String)
        /// A Dynamic Links long link (`/?link=...`, on any path).
        case longLink(query: String)
        case emailAction
    }

    package init(configuration: LinkDomainConfiguration) {
        var hosts: Set<String> = [configuration.publicHost]
        if let pivot = configuration.pivotBaseURL.flatMap(WebAddress.init) { hosts.insert(pivot.host) }
        self.hosts = hosts
        publicBaseURL = configuration.publicBaseURL
        actionPaths = Set(RoutePaths.actionLinkPaths(customActionPath: configuration.actionPath))
        policy = RedirectPolicy(authorizedDomains: configuration.authorizedDomains)
    }

    /// The shape of `link`, or nil when it is not a link of this domain (another host, a page of its own, nothing).
    package func shape(of link: String) -> Shape? {
        guard link.utf8.count <= 8 * 1024, let address = WebAddress(link), address.scheme == "https" || address.isLoopback,
            hosts.contains(address.host)
        else { return nil }
        let withoutFragment = address.rest.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let pieces = withoutFragment.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = pieces.first.map { $0.isEmpty ? "/" : $0 } ?? "/"
        let query = pieces.count > 1 ? pieces[1] : nil
        if actionPaths.contains(String(path)) { return .emailAction }
        if let query, QueryString(query)["link"] != nil { return .longLink(query: String(query)) }
        if let suffix = ShortLinkPath.suffix(ofPath: path) { return .shortLink(suffix: String(suffix)) }
        return nil
    }

    /// `requested` resolved: for a short link, from its stored long link's query; nil when a long
    /// link (stored or given) names no deep link, or one the redirect policy refuses (anyone can
    /// write a long link on this host, and the association files hand it to the real app).
    package func resolve(_ requested: String, shape: Shape, storedQuery: String? = nil) -> ResolvedAppLink? {
        switch shape {
        case .emailAction:
            return ResolvedAppLink(requestedLink: requested, resolvedLink: requested, deepLink: requested, utm: UTMValues(QueryString("")))
        case .longLink(let query):
            return fromLongLink(requested: requested, resolved: requested, query: query, suffix: nil)
        case .shortLink(let suffix):
            guard let storedQuery else { return nil }
            return fromLongLink(requested: requested, resolved: publicBaseURL + "/?" + storedQuery, query: storedQuery, suffix: suffix)
        }
    }

    private func fromLongLink(requested: String, resolved: String, query: String, suffix: String?) -> ResolvedAppLink? {
        let parameters = QueryString(Substring(query))
        guard let given = parameters["link"], !given.isEmpty, let deepLink = policy.allowed(given) else { return nil }
        return ResolvedAppLink(
            requestedLink: requested, resolvedLink: resolved, deepLink: deepLink, minimumAppVersion: parameters["imv"],
            utm: UTMValues(parameters), suffix: suffix, apps: AppIDs(parameters))
    }
}
