import LinkDomainCore

/// A page of short links as the console and `GET /v1/shortLinks` list them.
public struct ShortLinkQuery: Sendable, Equatable {
    public enum Order: String, Sendable, CaseIterable {
        /// Newest first.
        case created
        /// Most clicked first (all time).
        case clicks
    }

    /// The link, or the text in suffixes and long links, searched for.
    public var search = ShortLinkSearch.all
    public var order = Order.created
    /// Where the previous page ended (``ShortLinkListing/cursor(for:)``); nil for the first page.
    public var after: ShortLinkCursor?
    public var limit = 50

    public init(search: ShortLinkSearch = .all, order: Order = .created, after: ShortLinkCursor? = nil, limit: Int = 50) {
        self.search = search
        self.order = order
        self.after = after
        self.limit = limit
    }
}

/// The last row of a page, in the page's order: the next page starts after it.
public struct ShortLinkCursor: Sendable, Equatable {
    /// `createdAt` or `clicks`, by the order.
    public var value: Int64
    public var suffix: String

    public init(value: Int64, suffix: String) {
        self.value = value
        self.suffix = suffix
    }
}

extension ShortLinkCursor {
    package init?(pageToken: some StringProtocol) {
        guard let (value, suffix) = PageToken.decode(pageToken) else { return nil }
        self.init(value: value, suffix: suffix)
    }

    package var pageToken: String { PageToken.encode(value: value, key: suffix) }
}

/// A short link with what the console shows beside it.
public struct ShortLinkListing: Sendable, Equatable {
    public var record: ShortLinkRecord
    public var disabled: Bool
    /// `CLICK` events, all time.
    public var clicks: Int64

    public init(record: ShortLinkRecord, disabled: Bool, clicks: Int64) {
        self.record = record
        self.disabled = disabled
        self.clicks = clicks
    }

    public func cursor(for order: ShortLinkQuery.Order) -> ShortLinkCursor {
        ShortLinkCursor(value: order == .created ? record.createdAt : clicks, suffix: record.suffix)
    }
}

/// One day's events across every link, on one platform.
public struct DailyEventTotal: Sendable, Equatable {
    /// Days since 1970, UTC.
    public var day: Int
    public var platform: Platform
    public var event: LinkEvent
    public var count: Int64

    public init(day: Int, platform: Platform, event: LinkEvent, count: Int64) {
        self.day = day
        self.platform = platform
        self.event = event
        self.count = count
    }
}

/// A short link disabled, enabled or deleted: every replica drops it from its cache.
public struct ShortLinkChange: Sendable, Equatable {
    /// Increasing: a replica reads the changes after the last it saw.
    public var sequence: Int64
    public var suffix: String

    public init(sequence: Int64, suffix: String) {
        self.sequence = sequence
        self.suffix = suffix
    }
}

/// What the console and the listing API read and change about short links, beyond the serving
/// path's ``LinkStore``.
public protocol LinkAdminStore: Sendable {
    func shortLinks(_ query: ShortLinkQuery) async throws(StoreError) -> [ShortLinkListing]
    /// The link whether or not it is disabled; nil when there is none.
    func shortLinkListing(suffix: String) async throws(StoreError) -> ShortLinkListing?
    /// False when there is no such link.
    func setShortLinkDisabled(suffix: String, disabled: Bool, at: Int64) async throws(StoreError) -> Bool
    /// The link pointed at another long link (its suffix, clicks and state kept), with a change
    /// row in the same transaction; false when there is no such link.
    func updateShortLink(suffix: String, longLinkQuery: String, at: Int64) async throws(StoreError) -> Bool
    /// The link and its statistics; false when there was none.
    func deleteShortLink(suffix: String, at: Int64) async throws(StoreError) -> Bool
    /// Changes after `sequence`, oldest first (at most `limit`).
    func shortLinkChanges(after sequence: Int64, limit: Int) async throws(StoreError) -> [ShortLinkChange]
    /// The latest change's sequence (0 without any): where a replica starts reading.
    func latestShortLinkChange() async throws(StoreError) -> Int64
    /// Every link's events per day since `fromDay` (days since 1970).
    func dailyEventTotals(fromDay: Int) async throws(StoreError) -> [DailyEventTotal]
    /// One link's events per day since `fromDay`.
    func dailyEventTotals(suffix: String, fromDay: Int) async throws(StoreError) -> [DailyEventTotal]
    func shortLinkCount() async throws(StoreError) -> Int
}
