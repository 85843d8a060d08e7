import LinkDomain
import Synchronization

/// A clock that only moves when told to.
public final class ManualWallClock: WallClock {
    private let milliseconds: Mutex<Int64>

    public init(milliseconds: Int64) {
        self.milliseconds = Mutex(milliseconds)
    }

    public func nowMilliseconds() -> Int64 { milliseconds.withLock { $0 } }

    public func advance(seconds: Int64) { milliseconds.withLock { $0 += seconds * 1000 } }
}
