import LinkDomainCore
import PostgresNIO

/// What the console reads and changes about short links, in PostgreSQL.
extension PostgresStore: LinkAdminStore {
    public func shortLinks(_ query: ShortLinkQuery) async throws(StoreError) -> [ShortLinkListing] {
        // Two fixed column names, never the caller's text: safe to write into the statement.
        let column = query.order == .created ? "created_at" : "clicks"
        var sql = PostgresQuery(unsafeSQL: "SELECT suffix, long_link_query, created_at, origin, disabled, clicks FROM short_links WHERE TRUE")
        var bindings = PostgresBindings()
        switch query.search {
        case .all: break
        case .suffix(let suffix):
            bindings.append(suffix)
            sql = PostgresQuery(unsafeSQL: sql.sql + " AND suffix = $\(bindings.count)")
        case .text(let text, let encoded):
            bindings.append(text)
            let given = bindings.count
            bindings.append(encoded)
            // Suffixes are ASCII: lower() folds them all.
            sql = PostgresQuery(
                unsafeSQL: sql.sql
                    + " AND (strpos(lower(suffix), lower($\(given))) > 0 OR strpos(long_link_query, $\(given)) > 0 OR strpos(long_link_query, $\(bindings.count)) > 0)"
            )
        }
        if let after = query.after {
            bindings.append(after.value)
            let value = bindings.count
            bindings.append(after.suffix)
            // Newest or most clicked first: the next page has smaller values, or the same value and a smaller suffix.
            sql = PostgresQuery(unsafeSQL: sql.sql + " AND (\(column) < $\(value) OR (\(column) = $\(value) AND suffix < $\(bindings.count)))")
        }
        bindings.append(query.limit)
        let statement = PostgresQuery(unsafeSQL: sql.sql + " ORDER BY \(column) DESC, suffix DESC LIMIT $\(bindings.count)", binds: bindings)
        return try await listings(statement)
    }

    public func shortLinkListing(suffix: String) async throws(StoreError) -> ShortLinkListing? {
        try await listings("SELECT suffix, long_link_query, created_at, origin, disabled, clicks FROM short_links WHERE suffix = \(suffix)").first
    }

    public func setShortLinkDisabled(suffix: String, disabled: Bool, at: Int64) async throws(StoreError) -> Bool {
        try await changed(
            """
            WITH changed AS (UPDATE short_links SET disabled = \(disabled) WHERE suffix = \(suffix) RETURNING suffix)
            INSERT INTO link_changes (suffix, at) SELECT suffix, \(at) FROM changed RETURNING suffix
            """)
    }

    public func updateShortLink(suffix: String, longLinkQuery: String, at: Int64) async throws(StoreError) -> Bool {
        try await changed(
            """
            WITH changed AS (UPDATE short_links SET long_link_query = \(longLinkQuery) WHERE suffix = \(suffix) RETURNING suffix)
            INSERT INTO link_changes (suffix, at) SELECT suffix, \(at) FROM changed RETURNING suffix
            """)
    }

    public func deleteShortLink(suffix: String, at: Int64) async throws(StoreError) -> Bool {
        try await changed(
            """
            WITH deleted AS (DELETE FROM short_links WHERE suffix = \(suffix) RETURNING suffix),
            statistics AS (DELETE FROM link_events WHERE suffix IN (SELECT suffix FROM deleted))
            INSERT INTO link_changes (suffix, at) SELECT suffix, \(at) FROM deleted RETURNING suffix
            """)
    }

    public func shortLinkChanges(after sequence: Int64, limit: Int) async throws(StoreError) -> [ShortLinkChange] {
        try await guarded {
            var changes: [ShortLinkChange] = []
            for try await (sequence, suffix) in try await client.query(
                "SELECT sequence, suffix FROM link_changes WHERE sequence > \(sequence) ORDER BY sequence LIMIT \(limit)", logger: logger
            ).decode((Int64, String).self) {
                changes.append(ShortLinkChange(sequence: sequence, suffix: suffix))
            }
            return changes
        }
    }

    public func latestShortLinkChange() async throws(StoreError) -> Int64 {
        try await guarded {
            for try await latest in try await client.query("SELECT COALESCE(MAX(sequence), 0) FROM link_changes", logger: logger).decode(Int64.self) {
                return latest
            }
            return 0
        }
    }

    public func dailyEventTotals(fromDay: Int) async throws(StoreError) -> [DailyEventTotal] {
        try await totals("SELECT day, platform, event, count FROM link_event_days WHERE day >= \(fromDay) ORDER BY day")
    }

    public func dailyEventTotals(suffix: String, fromDay: Int) async throws(StoreError) -> [DailyEventTotal] {
        try await totals("SELECT day, platform, event, count FROM link_events WHERE suffix = \(suffix) AND day >= \(fromDay) ORDER BY day")
    }

    private func totals(_ query: PostgresQuery) async throws(StoreError) -> [DailyEventTotal] {
        try await guarded {
            var totals: [DailyEventTotal] = []
            for try await (day, platform, event, count) in try await client.query(query, logger: logger).decode((Int32, String, String, Int64).self) {
                if let platform = Platform(rawValue: platform), let event = LinkEvent(rawValue: event) {
                    totals.append(DailyEventTotal(day: Int(day), platform: platform, event: event, count: count))
                }
            }
            return totals
        }
    }

    public func shortLinkCount() async throws(StoreError) -> Int {
        try await guarded {
            for try await count in try await client.query("SELECT COUNT(*) FROM short_links", logger: logger).decode(Int64.self) { return Int(count) }
            return 0
        }
    }

    private func listings(_ query: PostgresQuery) async throws(StoreError) -> [ShortLinkListing] {
        try await guarded {
            var listings: [ShortLinkListing] = []
            for try await (suffix, longLinkQuery, createdAt, origin, disabled, clicks) in try await client.query(query, logger: logger)
                .decode((String, String, Int64, String, Bool, Int64).self)
            {
                listings.append(
                    ShortLinkListing(
                        record: ShortLinkRecord(
                            suffix: suffix, longLinkQuery: longLinkQuery, createdAt: createdAt,
                            origin: ShortLinkOrigin(rawValue: origin) ?? .api),
                        disabled: disabled, clicks: clicks))
            }
            return listings
        }
    }

    /// Whether `query` returned a row.
    private func changed(_ query: PostgresQuery) async throws(StoreError) -> Bool {
        try await guarded {
            for try await _ in try await client.query(query, logger: logger).decode(String.self) { return true }
            return false
        }
    }
}
