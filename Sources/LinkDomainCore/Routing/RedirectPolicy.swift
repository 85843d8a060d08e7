import Foundation

/// Decides whether a URL may be a redirect or link target: `https` (or `http` on a loopback host)
/// to an authorized domain or an app store, and nothing that a browser could read differently
/// from us (userinfo, backslashes, control characters, non-ASCII hosts, encoded dots).
public struct RedirectPolicy: Sendable {
    public var authorizedDomains: Set<String>
    /// App-store hosts links may always point at.
    public static let storeHosts: Set<String> = ["apps.apple.com", "itunes.apple.com", "play.google.com"]

    public init(authorizedDomains: [String]) {
        self.authorizedDomains = Set(authorizedDomains.map { $0.lowercased() })
    }

    /// The URL, as given, if it may be followed; nil otherwise.
    public func allowed(_ candidate: String) -> String? {
        guard candidate.utf8.count <= LinkParser.maximumURLLength, let address = WebAddress(candidate),
            address.scheme == "https" || address.isLoopback,
            authorizedDomains.contains(address.host) || Self.storeHosts.contains(address.host)
        else { return nil }
        // Non-ASCII text in the path or query goes out escaped: a header carries ASCII.
        return WebAddress.asciiSerialized(candidate)
    }
}
