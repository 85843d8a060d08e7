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
    ///
    /// The authority is parsed here, strictly, rather than by a URL library: what matters is that we
    /// read the host exactly as every browser will, so anything ambiguous is refused.
    public func allowed(_ candidate: String) -> String? {
        guard candidate.utf8.count <= LinkParser.maximumURLLength,
            candidate.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && $0 != "\\" })
        else { return nil }
        let lowered = candidate.lowercased()
        let scheme: String
        if lowered.hasPrefix("https://") {
            scheme = "https"
        } else if lowered.hasPrefix("http://") {
            scheme = "http"
        } else {
            return nil
        }
        let rest = lowered.dropFirst(scheme.count + 3)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, !authority.contains("@"), !authority.contains("%") else { return nil }
        var host = authority
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            guard authority[authority.index(after: colon)...].allSatisfy(\.isASCIIDigit) else { return nil }
            host = authority[..<colon]
        }
        let loopback = host == "localhost" || host == "127.0.0.1" || host == "[::1]"
        guard loopback || host.allSatisfy({ $0.isASCIILetterOrDigit || $0 == "." || $0 == "-" }) else { return nil }
        guard scheme == "https" || loopback else { return nil }
        guard authorizedDomains.contains(String(host)) || Self.storeHosts.contains(String(host)) else { return nil }
        return candidate
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
    fileprivate var isASCIILetterOrDigit: Bool { isASCIIDigit || ("a"..."z").contains(self) }
}
