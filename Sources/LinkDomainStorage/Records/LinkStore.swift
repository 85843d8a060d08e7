import LinkDomainCore

/// A short link: `<domain>/<suffix>` standing for a Dynamic Links long link.
public struct ShortLinkRecord: Codable, Sendable, Equatable {
    public var suffix: String
    /// The long link's query (`link=...&apn=...`), as the short link's resolution reads it.
    public var longLinkQuery: String
    /// Milliseconds since 1970.
    public var createdAt: Int64
    public var origin: ShortLinkOrigin

    public init(suffix: String, longLinkQuery: String, createdAt: Int64, origin: ShortLinkOrigin) {
        self.suffix = suffix
        self.longLinkQuery = longLinkQuery
        self.createdAt = createdAt
        self.origin = origin
    }
}

/// How a short link came to be (stored as the raw value).
public enum ShortLinkOrigin: String, Codable, Sendable {
    /// Made through `POST /v1/shortLinks`.
    case api
    /// Brought over from Dynamic Links by `linkdomain import`.
    case `import`
}

/// One row of link statistics: how often `event` happened for a link on a platform on a day.
public struct LinkEventCount: Sendable, Equatable {
    public var platform: Platform
    public var event: LinkEvent
    public var count: Int

    package init(platform: Platform, event: LinkEvent, count: Int) {
        self.platform = platform
        self.event = event
        self.count = count
    }
}

/// Events counted in memory, added to the store together (``LinkEventRecorder``).
public struct LinkEventTally: Sendable, Hashable {
    public var suffix: String
    /// Days since 1970, UTC.
    public var day: Int
    public var platform: Platform
    public var event: LinkEvent
    public var count: Int

    public init(suffix: String, day: Int, platform: Platform, event: LinkEvent, count: Int) {
        self.suffix = suffix
        self.day = day
        self.platform = platform
        self.event = event
        self.count = count
    }
}

/// Where short links and their statistics live. Statistics hold no IP address and no code.
public protocol LinkStore: Sendable {
    /// Stores a new short link; `.duplicate` when the suffix is taken.
    func insertShortLink(_ link: ShortLinkRecord) async throws(StoreError)
    func shortLink(suffix: String) async throws(StoreError) -> ShortLinkRecord?
    /// Adds each tally to its link's count for that day, platform and event, all or none.
    func recordEvents(_ tallies: [LinkEventTally]) async throws(StoreError)
    /// Totals per platform and event since `fromDay`, inclusive.
    func eventCounts(suffix: String, fromDay: Int) async throws(StoreError) -> [LinkEventCount]
    /// Marks a hand-off token claimed at `now`: true the first time for `id`, false ever after
    /// (on every replica). The claim is kept until `keepUntil` (milliseconds: its own token's
    /// expiry, whatever the lifetime is now); claims kept until before `now` are dropped.
    func claimHandoff(id: String, now: Int64, keepUntil: Int64) async throws(StoreError) -> Bool
}
