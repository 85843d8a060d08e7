import Foundation
import LinkDomainCore
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

    package init(current: Int64, previous: Int64) {
        self.current = current
        self.previous = previous
    }

    /// The takes in the last `window` seconds, estimated as the current window's and the share of
    /// the previous one's that the sliding window still covers.
    package func estimate(elapsed: Int64, window: Int64) -> Double {
        let covered = Double(max(0, window - elapsed)) / Double(max(1, window))
        return Double(current) + Double(previous) * covered
    }
}

/// A budget of `limit` takes per key and window: in the shared database when there is one
/// (PostgreSQL; a sliding estimate over the current and the previous fixed window), else (and
/// while that database is away) in this process, as a token bucket of the same size.
public struct Budget: Sendable {
    /// Names the budget in the shared table (`mail-recipient`, `console-sign-in` ...).
    package let name: String
    package let limit: Int
    package let windowSeconds: Int64
    package let local: RateLimiter
    package let shared: (any BudgetStore)?
    package let clock: any WallClock

    package init(name: String, limit: Int, windowSeconds: Int64, shared: (any BudgetStore)?, clock: any WallClock) {
        self.name = name
        self.limit = max(1, limit)
        self.windowSeconds = max(1, windowSeconds)
        let perMinute = Double(self.limit) * 60 / Double(self.windowSeconds)
        local =
            windowSeconds >= 3600
            ? RateLimiter(perHour: Int((perMinute * 60).rounded()))
            : RateLimiter(perMinute: max(1, Int(perMinute.rounded())), burst: self.limit)
        self.shared = shared
        self.clock = clock
    }

    /// Takes one for `key`: nil when allowed, else the seconds to wait.
    package func take(_ key: String) async -> Int? {
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
