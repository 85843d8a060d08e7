import HTTPTypes
import LinkDomainCore

/// The redirects a thread has answered for cached short links, kept by suffix, visitor and
/// method. A short link asked for without a query of its own is redirected by its long link, the
/// visitor's platform and the method alone (not the language, the host or the time), and a link
/// shared in a campaign is clicked by many people on the same few platforms: deciding once per
/// platform saves parsing the long link and deciding it again on every click (BENCHMARKS.md,
/// "The link's own work").
///
/// A kept redirect is used only while the cached record still has the long link it was decided
/// from, so an edited link is decided again; a disabled or deleted one leaves the link cache,
/// and then its suffix never reaches here. Redirects that came from a code's check are never kept.
/// Each thread holds its own: no lock on the path, bounded by starting over when full.
final class ShortLinkRedirects {
    struct Key: Hashable {
        var suffix: String
        var visitor: Visitor
        var method: HTTPRequest.Method
    }

    struct Redirect {
        /// The long link's query this was decided from.
        var longLinkQuery: String
        var status: HTTPResponse.Status
        var location: String
        var events: [LinkEvent]
    }

    /// Per thread; a few hundred bytes each.
    static let capacity = 4096
    private var redirects: [Key: Redirect] = [:]

    /// What was decided for `key`, if the link still has the long link it was decided from.
    func redirect(_ key: Key, longLinkQuery: String) -> Redirect? {
        guard let found = redirects[key], found.longLinkQuery == longLinkQuery else { return nil }
        return found
    }

    func keep(_ redirect: Redirect, for key: Key) {
        if redirects.count >= Self.capacity, redirects[key] == nil { redirects.removeAll(keepingCapacity: true) }
        redirects[key] = redirect
    }
}

/// Only ever used on the thread that made it (``PerThread/current``).
extension ShortLinkRedirects: @unchecked Sendable {}
