/// What an operator looks for when they paste something into the short links' search (the
/// console's box, `GET /v1/shortLinks?query=`): one link, when the text names one (the short link
/// on any of this service's addresses, with or without its scheme or query, or `/suffix`), else
/// text to find in suffixes (in any case: people type them as they heard them) and in long links,
/// as typed or as a URL inside a long link is written, percent-encoded.
public enum ShortLinkSearch: Sendable, Equatable {
    case all
    /// The link whose suffix this is, exactly (suffixes stay case-sensitive as links).
    case suffix(String)
    /// Suffixes containing `text` in any case, or long links containing `text` or `encoded`.
    case text(String, encoded: String)

    /// - Parameter hosts: this service's host names (the public one, the pivot one), lower-case.
    public init(pasted: String, hosts: [String]) {
        let text = pasted.trimmingWhitespace()
        guard !text.isEmpty else {
            self = .all
            return
        }
        if let suffix = Self.suffix(named: text, hosts: hosts) {
            self = .suffix(suffix)
        } else {
            self = .text(text, encoded: ActionLinkEncoder.percentEncode(text))
        }
    }

    /// The suffix `text` names as a link: `/suffix`, or a URL (or a host and path without a
    /// scheme) on one of `hosts` whose path is `/suffix`.
    private static func suffix(named text: String, hosts: [String]) -> String? {
        var path = Substring(text)
        if !text.hasPrefix("/") {
            let address = text.contains("://") ? text : "https://" + text
            guard let parsed = WebAddress(address), hosts.contains(parsed.host) else { return nil }
            path = parsed.rest
        }
        if let mark = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<mark] }
        return ShortLinkPath.suffix(ofPath: path).map(String.init)
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        let bytes = utf8
        guard let first = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }),
            let last = bytes.lastIndex(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D })
        else { return "" }
        return String(self[first...last])
    }
}
