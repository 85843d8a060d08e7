import HTTPTypes
import LinkDomainCore

/// The redirects a thread has answered for cached short links, kept by suffix, visitor and
/// method. A short link asked for without a query of its own is redirected by its long link, the
/// visitor's platform and the method alone (not the language, the host or the time), and a link
/// shared in a campaign is clicked by many people on the same few platforms: deciding once per
/// platform saves parsing the long link and deciding it again on every click (BENCHMARKS.md,
/// "The link's own work").
///
/// A kept redirect is used only while no link has been forgotten since it was decided
/// (``CachedLinkStore/generation``): an edited, disabled or deleted link is forgotten, so it is
/// decided again from the store. A thread finds a kept redirect without the link cache's lock,
/// which both event loops would otherwise take on every click. Redirects that came from a code's
/// check are never kept. Each thread holds its own: no lock on the path, bounded by starting
/// over when full. The thread's last redirect is compared before the table is hashed: clicks on
/// a campaign's link come in a row from the same platforms, and comparing the key costs a tenth
/// of hashing its suffix.
final class ShortLinkRedirects {
    struct Key: Hashable {
        var suffix: String
        var visitor: Visitor
        var method: HTTPRequest.Method
    }

    struct Redirect {
        /// The link cache's generation, read before the link this was decided from.
        var generation: UInt64
        var status: HTTPResponse.Status
        var location: String
        var events: [LinkEvent]
    }

    /// Per thread; a few hundred bytes each.
    static let capacity = 4096
    private var redirects: [Key: Redirect] = [:]
    /// The last key asked for and found (two properties, not an optional tuple, whose copy Swift
    /// makes through the runtime's generic witnesses).
    private var lastKey: Key?
    private var lastRedirect: Redirect?

    /// What was decided for `key`, if no link has been forgotten since: `generation` is the link cache's now.
    func redirect(_ key: Key, generation: UInt64) -> Redirect? {
        if lastKey == key, let lastRedirect { return lastRedirect.generation == generation ? lastRedirect : nil }
        guard let found = redirects[key], found.generation == generation else { return nil }
        (lastKey, lastRedirect) = (key, found)
        return found
    }

    func keep(_ redirect: Redirect, for key: Key) {
        if redirects.count >= Self.capacity, redirects[key] == nil { redirects.removeAll(keepingCapacity: true) }
        redirects[key] = redirect
        (lastKey, lastRedirect) = (key, redirect)
    }
}

/// Only ever used on the thread that made it (``PerThread/current``).
extension ShortLinkRedirects: @unchecked Sendable {}
