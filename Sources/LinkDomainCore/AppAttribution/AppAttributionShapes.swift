/// `GetIosReopenAttributionRequest`: the fields read (the others, `sdkVersion` among them, are accepted and ignored).
package struct ReopenRequest: Decodable, Sendable {
    package var bundleId: String?
    package var requestedLink: String?
}

/// `GetIosPostInstallAttributionRequest`: only the app and the link to check are read. `device`,
/// `iosVersion` and `appInstallationTime` are ignored on purpose: nothing is matched by them.
package struct InstallRequest: Decodable, Sendable {
    package var bundleId: String?
    package var uniqueMatchLinkToCheck: String?
}

/// `GetIosReopenAttributionResponse`.
package struct ReopenAttribution: Encodable, Sendable, Equatable {
    package var deepLink: String
    package var resolvedLink: String
    package var iosMinAppVersion: String?
    package var utmSource: String?
    package var utmMedium: String?
    package var utmCampaign: String?
    package var utmTerm: String?
    package var utmContent: String?

    package init(_ link: ResolvedAppLink) {
        deepLink = link.deepLink
        resolvedLink = link.resolvedLink
        iosMinAppVersion = link.minimumAppVersion
        utmSource = link.utm.source
        utmMedium = link.utm.medium
        utmCampaign = link.utm.campaign
        utmTerm = link.utm.term
        utmContent = link.utm.content
    }
}

/// `GetIosPostInstallAttributionResponse`: `UNIQUE` with the link, or no link and why.
package struct InstallAttribution: Encodable, Sendable, Equatable {
    package var attributionConfidence: String
    package var deepLink: String?
    package var requestedLink: String?
    package var resolvedLink: String?
    package var appMinimumVersion: String?
    package var matchMessage: String?
    package var utmSource: String?
    package var utmMedium: String?
    package var utmCampaign: String?
    package var utmTerm: String?
    package var utmContent: String?

    package init(_ link: ResolvedAppLink) {
        attributionConfidence = "UNIQUE"
        deepLink = link.deepLink
        requestedLink = link.requestedLink
        resolvedLink = link.resolvedLink
        appMinimumVersion = link.minimumAppVersion
        utmSource = link.utm.source
        utmMedium = link.utm.medium
        utmCampaign = link.utm.campaign
        utmTerm = link.utm.term
        utmContent = link.utm.content
    }

    private init(matchMessage: String) {
        attributionConfidence = "UNKNOWN_ATTRIBUTION_CONFIDENCE"
        self.matchMessage = matchMessage
    }

    package static func noMatch(_ why: String) -> InstallAttribution { InstallAttribution(matchMessage: why) }
}

/// Where hand-off tokens travel: `https://<host>/__/handoff/<token>` on the pasteboard, `ldh.<token>`
/// in a Play referrer.
package enum HandoffPaths {
    package static let prefix = "/__/handoff/"

    /// The token `candidate` carries (a hand-off URL of these hosts, a referrer's `ldh.` value), or nil.
    package static func token(in candidate: String, hosts: Set<String>) -> Substring? {
        if candidate.hasPrefix(HandoffSealer.referrerPrefix) { return candidate.dropFirst(HandoffSealer.referrerPrefix.count) }
        guard let address = WebAddress(candidate), hosts.contains(address.host), address.rest.hasPrefix(prefix) else { return nil }
        let token = address.rest.dropFirst(prefix.count).prefix { $0 != "?" && $0 != "#" }
        return token.isEmpty ? nil : token
    }
}
