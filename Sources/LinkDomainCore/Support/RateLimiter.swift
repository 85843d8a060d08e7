import Foundation
import Synchronization

/// Per-client token buckets: `burst` requests at once, refilled at `perMinute` a minute.
///
/// A lock, not an actor: taking a token is a few arithmetic steps, and hopping to an actor's
/// executor and back cost more than the step on every request that asks the backend.
///
/// Buckets live in two generations, turned once per refill time: a bucket untouched for a whole
/// generation has refilled and holds no information, so the older generation is dropped whole.
/// A take costs two lookups at most, however many clients there are; memory holds the clients of
/// the last two refill times, at most ``maximumKeys`` in each (past that the generations turn
/// early, which forgets the oldest clients' spending: the bound wins).
package final class RateLimiter: Sendable {
    package struct Bucket {
        package var tokens: Double
        package var updated: ContinuousClock.Instant
    }

    package struct Generations {
        package var current: [String: Bucket] = [:]
        package var previous: [String: Bucket] = [:]
        package var started: ContinuousClock.Instant

        /// Turns the generations when a refill time has passed since the current one began (or it
        /// is full); returns the dropped one, so that it is freed outside the lock.
        package mutating func turn(at now: ContinuousClock.Instant, every refill: Duration, maximumKeys: Int) -> [String: Bucket] {
            guard started.duration(to: now) >= refill || current.count >= maximumKeys else { return [:] }
            let dropped = previous
            previous = current
            current = [:]
            started = now
            return dropped
        }
    }

    /// The most clients one generation holds.
    package static let maximumKeys = 100_000

    package let perMinute: Double
    package let burst: Double
    /// How long an empty bucket takes to fill: a generation's length.
    private let refill: Duration
    private let clock = ContinuousClock()
    private let generations: Mutex<Generations>

    package convenience init(perMinute: Int, burst: Int) {
        self.init(perMinute: Double(perMinute), burst: Double(burst))
    }

    /// `perHour` at once, refilled over the hour: a mail budget.
    package convenience init(perHour: Int) {
        self.init(perMinute: Double(perHour) / 60, burst: Double(perHour))
    }

    private init(perMinute: Double, burst: Double) {
        self.perMinute = max(perMinute, 1.0 / 60)
        self.burst = max(burst, 1)
        refill = .milliseconds(Int64((self.burst * 60_000 / self.perMinute).rounded(.up)))
        generations = Mutex(Generations(started: clock.now))
    }

    /// Takes a token for `key`: nil when allowed, else the seconds to wait before one is back.
    package func take(_ key: String) -> Int? {
        let now = clock.now
        // The dropped generation (possibly many clients) is freed as this returns, not under the lock.
        let (wait, _) = generations.withLock { generations -> (Int?, [String: Bucket]) in
            let dropped = generations.turn(at: now, every: refill, maximumKeys: Self.maximumKeys)
            // A client already in this generation is found and updated with one hash of its key.
            if let index = generations.current.index(forKey: key) {
                return (take(from: &generations.current.values[index], now), dropped)
            }
            var bucket = refilled(generations.previous[key], now)
            let wait = take(from: &bucket, now)
            generations.current[key] = bucket
            return (wait, dropped)
        }
        return wait
    }

    /// Gives back a token ``take(_:)`` gave for work that was then not done here (the caller passed
    /// it on to someone who takes their own): one lock for the work done, a second only for the
    /// rare hand-over. Never past the burst; a bucket turned into the older generation meanwhile
    /// gets it back there.
    package func giveBack(_ key: String) {
        let burst = burst
        func giveBack(in buckets: inout [String: Bucket]) -> Bool {
            guard let index = buckets.index(forKey: key) else { return false }
            buckets.values[index].tokens = min(burst, buckets.values[index].tokens + 1)
            return true
        }
        generations.withLock { generations in
            if !giveBack(in: &generations.current) { _ = giveBack(in: &generations.previous) }
        }
    }

    /// Refills `bucket` to `now` and takes a token: nil, or the seconds until one is there.
    private func take(from bucket: inout Bucket, _ now: ContinuousClock.Instant) -> Int? {
        bucket = refilled(bucket, now)
        guard bucket.tokens >= 1 else { return max(1, Int(((1 - bucket.tokens) * 60 / perMinute).rounded(.up))) }
        bucket.tokens -= 1
        return nil
    }

    private func refilled(_ bucket: Bucket?, _ now: ContinuousClock.Instant) -> Bucket {
        guard var bucket else { return Bucket(tokens: burst, updated: now) }
        // Once: each reading of `components` divides the duration's 128-bit attoseconds again.
        let elapsed = bucket.updated.duration(to: now).components
        let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
        bucket.tokens = min(burst, bucket.tokens + seconds * perMinute / 60)
        bucket.updated = now
        return bucket
    }
}
