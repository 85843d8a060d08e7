import Foundation
import Synchronization

/// Per-client token buckets: `burst` requests at once, refilled at `perMinute` a minute.
///
/// A lock, not an actor: taking a token is a few arithmetic steps, and hopping to an actor's
/// executor and back cost more than the step on every request that asks the backend.
final class RateLimiter: Sendable {
    struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    let perMinute: Double
    let burst: Double
    private let buckets = Mutex<[String: Bucket]>([:])
    private let clock = ContinuousClock()

    init(perMinute: Int, burst: Int) {
        self.perMinute = Double(perMinute)
        self.burst = Double(burst)
    }

    /// `perHour` at once, refilled over the hour: a mail budget.
    init(perHour: Int) {
        perMinute = Double(perHour) / 60
        burst = Double(perHour)
    }

    /// Takes a token for `key`: nil when allowed, else the seconds to wait before one is back.
    func take(_ key: String) -> Int? {
        let now = clock.now
        return buckets.withLock { buckets in
            var bucket = refilled(buckets[key], now)
            defer {
                buckets[key] = bucket
                if buckets.count > 50_000 { forgetFullBuckets(&buckets, now) }
            }
            guard bucket.tokens >= 1 else { return max(1, Int(((1 - bucket.tokens) * 60 / perMinute).rounded(.up))) }
            bucket.tokens -= 1
            return nil
        }
    }

    /// Whether `key` has a token now, taking none: a caller that will take one only after work
    /// that may make the token unneeded asks first, so that an empty bucket costs it no work.
    func hasToken(_ key: String) -> Bool {
        let now = clock.now
        return buckets.withLock { refilled($0[key], now).tokens >= 1 }
    }

    private func refilled(_ bucket: Bucket?, _ now: ContinuousClock.Instant) -> Bucket {
        guard var bucket else { return Bucket(tokens: burst, updated: now) }
        let elapsed = bucket.updated.duration(to: now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        bucket.tokens = min(burst, bucket.tokens + seconds * perMinute / 60)
        bucket.updated = now
        return bucket
    }

    /// Buckets that have refilled completely hold no information: drop them so memory stays bounded.
    private func forgetFullBuckets(_ buckets: inout [String: Bucket], _ now: ContinuousClock.Instant) {
        let refill = Duration.seconds(burst * 60 / perMinute)
        buckets = buckets.filter { $0.value.updated.duration(to: now) < refill }
    }
}
