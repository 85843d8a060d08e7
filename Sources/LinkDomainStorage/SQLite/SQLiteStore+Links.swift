import GRDB
import LinkDomainCore

/// Short links' statistics and what the console reads and changes, in SQLite.
extension SQLiteStore: LinkAdminStore {
    public func recordEvents(_ tallies: [LinkEventTally]) async throws(StoreError) {
        try await write { db in
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO linkEvents (suffix, day, platform, event, count) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (suffix, day, platform, event) DO UPDATE SET count = count + excluded.count
                    """)
            // The console's daily totals and each link's clicks, in the same write.
            let daily = try db.cachedStatement(
                sql: """
                    INSERT INTO linkEventDays (day, platform, event, count) VALUES (?, ?, ?, ?)
                    ON CONFLICT (day, platform, event) DO UPDATE SET count = count + excluded.count
                    """)
            let clicks = try db.cachedStatement(sql: "UPDATE shortLinks SET clicks = clicks + ? WHERE suffix = ?")
            for tally in tallies {
                try statement.execute(arguments: [tally.suffix, tally.day, tally.platform.rawValue, tally.event.rawValue, tally.count])
                try daily.execute(arguments: [tally.day, tally.platform.rawValue, tally.event.rawValue, tally.count])
                if tally.event == .click { try clicks.execute(arguments: [tally.count, tally.suffix]) }
            }
        }
    }

    public func eventCounts(suffix: String, fromDay: Int) async throws(StoreError) -> [LinkEventCount] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT platform, event, SUM(count) AS total FROM linkEvents
                    WHERE suffix = ? AND day >= ? GROUP BY platform, event ORDER BY platform, event
                    """,
                arguments: [suffix, fromDay]
            ).compactMap { row in
                guard let platform = Platform(rawValue: row["platform"]), let event = LinkEvent(rawValue: row["event"]) else { return nil }
                return LinkEventCount(platform: platform, event: event, count: row["total"])
            }
        }
    }

    public func shortLinks(_ query: ShortLinkQuery) async throws(StoreError) -> [ShortLinkListing] {
        let column = query.order == .created ? "createdAt" : "clicks"
        var conditions: [String] = []
        var arguments = StatementArguments()
        switch query.search {
        case .all: break
        case .suffix(let suffix):
            conditions.append("suffix = ?")
            arguments += [suffix]
        case .text(let text, let encoded):
            // Suffixes are ASCII: lower() folds them all.
            conditions.append("(instr(lower(suffix), lower(?)) > 0 OR instr(longLinkQuery, ?) > 0 OR instr(longLinkQuery, ?) > 0)")
            arguments += [text, text, encoded]
        }
        if let after = query.after {
            // Newest or most clicked first: the next page has smaller values, or the same value and a smaller suffix.
            conditions.append("(\(column) < ? OR (\(column) = ? AND suffix < ?))")
            arguments += [after.value, after.value, after.suffix]
        }
        let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        arguments += [query.limit]
        let sql = "SELECT * FROM shortLinks \(filter) ORDER BY \(column) DESC, suffix DESC LIMIT ?"
        return try await read { [arguments] db in try Row.fetchAll(db, sql: sql, arguments: arguments).map(Self.listing) }
    }

    public func shortLinkListing(suffix: String) async throws(StoreError) -> ShortLinkListing? {
        try await read { db in try Row.fetchOne(db, sql: "SELECT * FROM shortLinks WHERE suffix = ?", arguments: [suffix]).map(Self.listing) }
    }

    public func setShortLinkDisabled(suffix: String, disabled: Bool, at: Int64) async throws(StoreError) -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE shortLinks SET disabled = ? WHERE suffix = ?", arguments: [disabled, suffix])
            guard db.changesCount == 1 else { return false }
            try db.execute(sql: "INSERT INTO linkChanges (suffix, at) VALUES (?, ?)", arguments: [suffix, at])
            return true
        }
    }

    public func updateShortLink(suffix: String, longLinkQuery: String, at: Int64) async throws(StoreError) -> Bool {
        try await write { db in
            try db.execute(sql: "UPDATE shortLinks SET longLinkQuery = ? WHERE suffix = ?", arguments: [longLinkQuery, suffix])
            guard db.changesCount == 1 else { return false }
            try db.execute(sql: "INSERT INTO linkChanges (suffix, at) VALUES (?, ?)", arguments: [suffix, at])
            return true
        }
    }

    public func deleteShortLink(suffix: String, at: Int64) async throws(StoreError) -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM shortLinks WHERE suffix = ?", arguments: [suffix])
            guard db.changesCount == 1 else { return false }
            try db.execute(sql: "DELETE FROM linkEvents WHERE suffix = ?", arguments: [suffix])
            try db.execute(sql: "INSERT INTO linkChanges (suffix, at) VALUES (?, ?)", arguments: [suffix, at])
            return true
        }
    }

    public func shortLinkChanges(after sequence: Int64, limit: Int) async throws(StoreError) -> [ShortLinkChange] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT sequence, suffix FROM linkChanges WHERE sequence > ? ORDER BY sequence LIMIT ?",
                arguments: [sequence, limit]
            ).map { ShortLinkChange(sequence: $0["sequence"], suffix: $0["suffix"]) }
        }
    }

    public func latestShortLinkChange() async throws(StoreError) -> Int64 {
        try await read { db in try Int64.fetchOne(db, sql: "SELECT MAX(sequence) FROM linkChanges") ?? 0 }
    }

    public func dailyEventTotals(fromDay: Int) async throws(StoreError) -> [DailyEventTotal] {
        try await read { db in
            Self.totals(
                try Row.fetchAll(
                    db, sql: "SELECT day, platform, event, count FROM linkEventDays WHERE day >= ? ORDER BY day",
                    arguments: [fromDay]))
        }
    }

    public func dailyEventTotals(suffix: String, fromDay: Int) async throws(StoreError) -> [DailyEventTotal] {
        try await read { db in
            Self.totals(
                try Row.fetchAll(
                    db, sql: "SELECT day, platform, event, count FROM linkEvents WHERE suffix = ? AND day >= ? ORDER BY day",
                    arguments: [suffix, fromDay]))
        }
    }

    private static func totals(_ rows: [Row]) -> [DailyEventTotal] {
        rows.compactMap { row in
            guard let platform = Platform(rawValue: row["platform"]), let event = LinkEvent(rawValue: row["event"]) else { return nil }
            return DailyEventTotal(day: row["day"], platform: platform, event: event, count: row["count"])
        }
    }

    public func shortLinkCount() async throws(StoreError) -> Int {
        try await read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM shortLinks") ?? 0 }
    }

    private static func listing(_ row: Row) -> ShortLinkListing {
        ShortLinkListing(
            record: ShortLinkRecord(
                suffix: row["suffix"], longLinkQuery: row["longLinkQuery"], createdAt: row["createdAt"],
                origin: ShortLinkOrigin(rawValue: row["origin"]) ?? .api),
            disabled: row["disabled"], clicks: row["clicks"])
    }
}
