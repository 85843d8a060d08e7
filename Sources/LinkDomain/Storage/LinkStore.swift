/// A short link: `<domain>/<suffix>` standing for a Dynamic Links long link.
public struct ShortLinkRecord: Codable, Sendable, Equatable {
    public var suffix: String
    /// The long link's query (`link=...&apn=...`), as the short link's resolution reads it.
    public var longLinkQuery: String
    /// Milliseconds since 1970.
    public var createdAt: Int64
    /// `api` or `import`.
    public var origin: String

    public init(suffix: String, longLinkQuery: String, createdAt: Int64, origin: String) {
        self.suffix = suffix
        self.longLinkQuery = longLinkQuery
        self.createdAt = createdAt
        self.origin = origin
    }
}

/// One row of link statistics: how often `event` happened for a link on a platform on a day.
public struct LinkEventCount: Sendable, Equatable {
    public var platform: Platform
    public var event: LinkEvent
    public var count: Int
}

/// Where short links and their statistics live. Statistics hold no IP address and no code.
public protocol LinkStore: Sendable {
    /// Stores a new short link; `.duplicate` when the suffix is taken.
    func insertShortLink(_ link: ShortLinkRecord) async throws(StoreError)
    func shortLink(suffix: String) async throws(StoreError) -> ShortLinkRecord?
    /// Counts one event for a link, under the day (days since 1970, UTC).
    func recordEvent(suffix: String, platform: Platform, event: LinkEvent, day: Int) async throws(StoreError)
    /// Totals per platform and event since `fromDay`, inclusive.
    func eventCounts(suffix: String, fromDay: Int) async throws(StoreError) -> [LinkEventCount]
}
