import HTTPTypes
import LinkDomainCore
import LinkDomainStorage
import NIOCore
import Synchronization

/// The helper origin's answers kept in memory (docs/design/auth-helper.md, "Kept copies"): served
/// while fresh without asking the origin, and past their age while the origin cannot be reached.
/// Bounded in bytes; the least recently used go first.
final class KeptCopies: Sendable {
    struct Copy: Sendable {
        var headers: HTTPFields
        var body: ByteBuffer
        var keptAt: ContinuousClock.Instant
        var freshFor: Duration
        /// Whether it may be served past its freshness (for a day) while the origin is down.
        var mayServeStale: Bool

        var size: Int { body.readableBytes + headers.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count } }
        func isFresh(at now: ContinuousClock.Instant) -> Bool { keptAt.duration(to: now) < freshFor }
        func mayServe(whileDownAt now: ContinuousClock.Instant) -> Bool {
            isFresh(at: now) || (mayServeStale && keptAt.duration(to: now) < freshFor + .seconds(HelperCachePolicy.staleIfErrorSeconds))
        }
        /// Whole seconds since it was kept, for the `Age` field.
        func age(at now: ContinuousClock.Instant) -> Int { Int(keptAt.duration(to: now).components.seconds) }
    }

    private struct State {
        var copies: [String: Copy] = [:]
        /// Keys from least to most recently used.
        var order: [String] = []
        var bytes = 0

        /// Drops `key`'s copy and its bytes (the key's own included), if there is one.
        mutating func remove(_ key: String) {
            order.removeAll { $0 == key }
            guard let old = copies.removeValue(forKey: key) else { return }
            bytes -= old.size + key.utf8.count
        }
    }

    /// 16 MiB: Firebase's helper files together are well under a megabyte.
    let capacityBytes: Int
    /// Few enough that the recency list's scans cost nothing; only query-less targets are kept.
    let capacityCopies: Int
    private let state = Mutex(State())

    init(capacityBytes: Int = 16 << 20, capacityCopies: Int = 128) {
        self.capacityBytes = capacityBytes
        self.capacityCopies = capacityCopies
    }

    func remove(_ key: String) {
        state.withLock { $0.remove(key) }
    }

    func copy(for key: String) -> Copy? {
        state.withLock { state in
            guard let copy = state.copies[key] else { return nil }
            if let index = state.order.firstIndex(of: key) { state.order.remove(at: index) }
            state.order.append(key)
            return copy
        }
    }

    func keep(_ copy: Copy, for key: String) {
        let size = copy.size + key.utf8.count
        guard size <= capacityBytes / 4 else { return }
        state.withLock { state in
            state.remove(key)
            while state.bytes + size > capacityBytes || state.copies.count >= capacityCopies, let oldest = state.order.first {
                state.remove(oldest)
            }
            state.copies[key] = copy
            state.order.append(key)
            state.bytes += size
        }
    }
}
