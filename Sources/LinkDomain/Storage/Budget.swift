import Foundation
import PostgresNIO
import Synchronization

/// Counts per key and fixed window in the database every replica shares, so that a budget that
/// protects someone else (mails to a mailbox, console sign-in attempts) holds for the whole
/// deployment, not once per replica.
public protocol BudgetStore: Sendable {
    /// Counts one take of `key` in the window of `windowSeconds` that `now` (seconds) falls in;
    /// returns how many that window has counted, this one included, and how many the window
    /// before it counted (for a sliding estimate: a burst across a window's edge is not let
    /// through twice).
    func countTake(_ key: String, windowSeconds: Int64, now: Int64) async throws(StoreError) -> BudgetCount
}

/// What a shared budget has counted for a key.
public struct BudgetCount: Sendable, Equatable {
    public var current: Int64
    public var previous: Int64

    /// The takes in the last `window` seconds, estimated as the current window's and the share of
    /// the previous one's that the sliding window still covers.
    func estimate(elapsed: Int64, window: Int64) -> Double {
        let covered = Double(max(0, window - elapsed)) / Double(max(1, window))
        return Double(current) + Double(previous) * covered
    }
}

/// A budget of `limit` takes per key and window: in the shared database when there is one
/// (PostgreSQL; a sliding estimate over the current and the previous fixed window), else (and
/// while that database is away) in this process, as a token bucket of the same size.
public struct Budget: Sendable {
    /// Names the budget in the shared table (`mail-recipient`, `console-sign-in` ...).
    let name: String
    let limit: Int
    let windowSeconds: Int64
    let local: RateLimiter
    let shared: (any BudgetStore)?
    let clock: any WallClock

    init(name: String, limit: Int, windowSeconds: Int64, shared: (any BudgetStore)?, clock: any WallClock) {
        self.name = name
        self.limit = max(1, limit)
        self.windowSeconds = max(1, windowSeconds)
        let perMinute = Double(self.limit) * 60 / Double(self.windowSeconds)
        local = windowSeconds >= 3600 ? RateLimiter(perHour: Int((perMinute * 60).rounded()))
            : RateLimiter(perMinute: max(1, Int(perMinute.rounded())), burst: self.limit)
        self.shared = shared
        self.clock = clock
    }

    /// Takes one for `key`: nil when allowed, else the seconds to wait.
    func take(_ key: String) async -> Int? {
        guard let shared else { return local.take(key) }
        let now = clock.nowSeconds
        do {
            let count = try await shared.countTake(storedKey(key), windowSeconds: windowSeconds, now: now)
            let elapsed = now.remainderReportingOverflow(dividingBy: windowSeconds).partialValue
            guard count.estimate(elapsed: elapsed, window: windowSeconds) > Double(limit) else { return nil }
            // Until the window ends (`now` is never before its start).
            return Int(max(1, windowSeconds - elapsed))
        } catch {
            // The database is away: each replica keeps its own count meanwhile.
            return local.take(key)
        }
    }

    /// The key as stored: the budget's name and a digest of the key, never an address itself.
    private func storedKey(_ key: String) -> String {
        name + ":" + KeyDigest.hex(key, bytes: 16)
    }
}

extension PostgresStore: BudgetStore {
    public func countTake(_ key: String, windowSeconds: Int64, now: Int64) async throws(StoreError) -> BudgetCount {
        let window = max(1, windowSeconds)
        let start = now - now.remainderReportingOverflow(dividingBy: window).partialValue
        let count: BudgetCount = try await guarded {
            // One statement: replicas taking at once each get their own count. A new window keeps
            // the last one's count as `previous` when it is the one just before.
            for try await (current, previous) in try await client.query("""
                INSERT INTO budget_windows (key, window_start, count, previous) VALUES (\(key), \(start), 1, 0)
                ON CONFLICT (key) DO UPDATE SET
                    previous = CASE WHEN budget_windows.window_start = EXCLUDED.window_start THEN budget_windows.previous
                                    WHEN budget_windows.window_start = EXCLUDED.window_start - \(window) THEN budget_windows.count
                                    ELSE 0 END,
                    count = CASE WHEN budget_windows.window_start = EXCLUDED.window_start THEN budget_windows.count + 1 ELSE 1 END,
                    window_start = EXCLUDED.window_start
                RETURNING count, previous
                """, logger: logger).decode((Int64, Int64).self)
            {
                return BudgetCount(current: current, previous: previous)
            }
            return BudgetCount(current: 1, previous: 0)
        }
        // No budget's window is longer than an hour: ended ones are swept now and then, not on every take.
        if budgetTakes.add(1, ordering: .relaxed).newValue % 1000 == 0 {
            _ = try? await guarded { try await client.query("DELETE FROM budget_windows WHERE window_start < \(now - 7200)", logger: logger) }
        }
        return count
    }
}
