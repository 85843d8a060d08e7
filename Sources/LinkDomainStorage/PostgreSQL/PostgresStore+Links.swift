import Foundation
import LinkDomainCore
import Logging
import PostgresNIO
import ServiceLifecycle

/// Short links and their statistics in PostgreSQL.
extension PostgresStore {
    public func insertShortLink(_ link: ShortLinkRecord) async throws(StoreError) {
        try await guarded {
            try await client.query(
                """
                INSERT INTO short_links (suffix, long_link_query, created_at, origin)
                VALUES (\(link.suffix), \(link.longLinkQuery), \(link.createdAt), \(link.origin.rawValue))
                """, logger: logger)
        }
    }

    public func shortLink(suffix: String) async throws(StoreError) -> ShortLinkRecord? {
        try await guarded {
            for try await (suffix, query, createdAt, origin) in try await client.query(
                // A disabled link is served as none.
                "SELECT suffix, long_link_query, created_at, origin FROM short_links WHERE suffix = \(suffix) AND NOT disabled", logger: logger
            ).decode((String, String, Int64, String).self) {
                return ShortLinkRecord(suffix: suffix, longLinkQuery: query, createdAt: createdAt, origin: ShortLinkOrigin(rawValue: origin) ?? .api)
            }
            return nil
        }
    }

    public func claimHandoff(id: String, now: Int64, keepUntil: Int64) async throws(StoreError) -> Bool {
        try await guarded {
            try await client.query("DELETE FROM handoff_claims WHERE keep_until < \(now)", logger: logger)
            // The primary key decides between replicas: one insert wins, the others return no row.
            for try await _ in try await client.query(
                "INSERT INTO handoff_claims (id, claimed_at, keep_until) VALUES (\(id), \(now), \(keepUntil)) ON CONFLICT (id) DO NOTHING RETURNING id",
                logger: logger
            ).decode(String.self) {
                return true
            }
            return false
        }
    }

    public func recordEvents(_ tallies: [LinkEventTally]) async throws(StoreError) {
        guard !tallies.isEmpty else { return }
        // One statement for the whole batch: the tallies are distinct keys, so no row is hit twice.
        let suffixes = tallies.map(\.suffix), days = tallies.map(\.day), counts = tallies.map(\.count)
        let platforms = tallies.map(\.platform.rawValue), events = tallies.map(\.event.rawValue)
        try await guarded {
            // With the console's daily totals and each link's clicks: one statement, so all or nothing.
            try await client.query(
                """
                WITH batch (suffix, day, platform, event, count) AS (
                    SELECT * FROM unnest(\(suffixes)::TEXT[], \(days)::INTEGER[], \(platforms)::TEXT[], \(events)::TEXT[], \(counts)::BIGINT[])),
                per_link AS (
                    INSERT INTO link_events (suffix, day, platform, event, count) SELECT * FROM batch
                    ON CONFLICT (suffix, day, platform, event) DO UPDATE SET count = link_events.count + EXCLUDED.count),
                per_day AS (
                    INSERT INTO link_event_days (day, platform, event, count) SELECT day, platform, event, SUM(count) FROM batch
                    GROUP BY day, platform, event
                    ON CONFLICT (day, platform, event) DO UPDATE SET count = link_event_days.count + EXCLUDED.count)
                UPDATE short_links SET clicks = short_links.clicks + totals.clicks
                FROM (SELECT suffix, SUM(count) AS clicks FROM batch WHERE event = 'CLICK' GROUP BY suffix) totals
                WHERE short_links.suffix = totals.suffix
                """, logger: logger)
        }
    }

    public func eventCounts(suffix: String, fromDay: Int) async throws(StoreError) -> [LinkEventCount] {
        try await guarded {
            var result: [LinkEventCount] = []
            for try await (platform, event, total) in try await client.query(
                """
                SELECT platform, event, SUM(count)::BIGINT FROM link_events WHERE suffix = \(suffix) AND day >= \(fromDay)
                GROUP BY platform, event ORDER BY platform, event
                """, logger: logger
            ).decode((String, String, Int64).self) {
                if let platform = Platform(rawValue: platform), let event = LinkEvent(rawValue: event) {
                    result.append(LinkEventCount(platform: platform, event: event, count: Int(total)))
                }
            }
            return result
        }
    }
}
