import Foundation
import Synchronization

/// The time of day, injected wherever the service reads it (codes and tokens, form tokens, link
/// statistics), so tests can move it.
public protocol WallClock: Sendable {
    /// Milliseconds since 1970.
    func nowMilliseconds() -> Int64
}

extension WallClock {
    /// Seconds since 1970.
    var nowSeconds: Int64 { nowMilliseconds() / 1000 }
}

/// The system's clock.
public struct SystemClock: WallClock {
    public init() {}
    public func nowMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}

/// A clock that only moves when told to.
public final class ManualWallClock: WallClock {
    private let milliseconds: Mutex<Int64>

    public init(milliseconds: Int64) {
        self.milliseconds = Mutex(milliseconds)
    }

    public func nowMilliseconds() -> Int64 { milliseconds.withLock { $0 } }

    public func advance(seconds: Int64) { milliseconds.withLock { $0 += seconds * 1000 } }
}
