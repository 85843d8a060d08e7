import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a link of a LinkDomain link domain means for the app it opened (or was installed through).
public struct ResolvedLink: Sendable, Equatable {
    /// What the app should show: the Dynamic Link's `link`, or an email action link itself (hand
    /// that to `Auth.auth().isSignIn(withEmailLink:)` / `checkActionCode`).
    public var deepLink: String
    /// The long link a short link stands for (the link itself otherwise).
    public var resolvedLink: String?
    /// `imv`: the app version the link needs.
    public var minimumAppVersion: String?
    /// `utm_source`, `utm_medium`, `utm_campaign`, `utm_term`, `utm_content`, by those names.
    public var utm: [String: String]
}

/// Why a call failed.
public enum LinkDomainClientError: Error, Sendable, Equatable {
    /// The service refused the request (an unknown link or app, a bad key): its status and message.
    case refused(status: Int, message: String)
    /// The service could not be reached, or did not answer in time.
    case unreachable(String)
    /// The answer was not the API's.
    case invalidAnswer
}

/// The app half of a LinkDomain link domain, for iOS, macOS and Linux apps: Foundation and
/// URLSession only. It replaces the Dynamic Links SDK's `handleUniversalLink` and its first-open
/// install attribution, without fingerprinting: an install finds its link only through a
/// hand-off the person carried (the pasteboard on iOS, Play's install referrer on Android).
public struct LinkDomainClient: Sendable {
    /// The link domain's origin, such as `https://links.example.com`.
    public let domain: URL
    /// The public API key the app ships (`backend.apiKey` or one of `backend.apiKeys`).
    public let apiKey: String
    /// The app's bundle ID (or Android package name), as configured on the link domain.
    public let bundleID: String
    private let session: URLSession

    public init(domain: URL, apiKey: String, bundleID: String, session: URLSession = .shared) {
        self.domain = domain
        self.apiKey = apiKey
        self.bundleID = bundleID
        self.session = session
    }

    /// The deep link of a universal link / App Link the app was opened with (`reopenAttribution`).
    public func resolve(_ universalLink: URL) async throws(LinkDomainClientError) -> ResolvedLink {
        let answer = try await call("reopenAttribution", ["bundleId": bundleID, "requestedLink": universalLink.absoluteString])
        guard let link = Self.resolved(answer) else { throw .invalidAnswer }
        return link
    }

    /// On first launch: the link the person copied with "Copy the link and get the app" (read the
    /// pasteboard once, and only when ``isHandoff(_:)`` says it holds one). Nil when nothing matches:
    /// spent, expired, or not a hand-off.
    public func claimInstall(pasteboardLink: String) async throws(LinkDomainClientError) -> ResolvedLink? {
        try await claim(pasteboardLink)
    }

    /// On first launch on Android: the Play install referrer's `referrer` (`ldh.` and a token).
    public func claimInstall(referrer: String) async throws(LinkDomainClientError) -> ResolvedLink? {
        try await claim(referrer)
    }

    /// Whether `text` (the pasteboard's string) is a hand-off of this link domain, so the app reads
    /// and claims nothing else.
    public func isHandoff(_ text: String) -> Bool {
        text.hasPrefix(domain.absoluteString.trimmingSuffix("/") + "/__/handoff/")
    }

    private func claim(_ candidate: String) async throws(LinkDomainClientError) -> ResolvedLink? {
        let answer = try await call("installAttribution", ["bundleId": bundleID, "uniqueMatchLinkToCheck": candidate])
        guard answer["attributionConfidence"] as? String == "UNIQUE" else { return nil }
        return Self.resolved(answer)
    }

    private static func resolved(_ answer: [String: Any]) -> ResolvedLink? {
        guard let deepLink = answer["deepLink"] as? String else { return nil }
        var utm: [String: String] = [:]
        for (field, name) in [
            ("utmSource", "utm_source"), ("utmMedium", "utm_medium"), ("utmCampaign", "utm_campaign"),
            ("utmTerm", "utm_term"), ("utmContent", "utm_content"),
        ] {
            if let value = answer[field] as? String { utm[name] = value }
        }
        return ResolvedLink(
            deepLink: deepLink, resolvedLink: answer["resolvedLink"] as? String,
            minimumAppVersion: (answer["iosMinAppVersion"] ?? answer["appMinimumVersion"]) as? String, utm: utm)
    }

    private func call(_ method: String, _ body: [String: String]) async throws(LinkDomainClientError) -> [String: Any] {
        var components = URLComponents(url: domain.appendingPathComponent("v1/\(method)"), resolvingAgainstBaseURL: false)
        components?.queryItems = [URLQueryItem(name: "key", value: apiKey)]
        guard let url = components?.url, let payload = try? JSONSerialization.data(withJSONObject: body) else { throw .invalidAnswer }
        var request = URLRequest(url: url, timeoutInterval: 15)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = payload
        let data: Data, response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw .unreachable(error.localizedDescription)
        }
        guard let status = (response as? HTTPURLResponse)?.statusCode,
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw .invalidAnswer }
        guard status == 200 else {
            let message = (object["error"] as? [String: Any])?["message"] as? String ?? "HTTP \(status)"
            throw .refused(status: status, message: message)
        }
        return object
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
