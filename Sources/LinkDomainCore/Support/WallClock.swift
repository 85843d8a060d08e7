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
    package var nowSeconds: Int64 { nowMilliseconds() / 1000 }
}

/// The system's clock.
public struct SystemClock: WallClock {
    public init() {}
    public func nowMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}
