import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The wall clock's current second as text, formatted at most once a second: `Date` headers and
/// log lines read it on every request.
package final class SecondText: Sendable {
    private let format: @Sendable (Int) -> String
    private let cache: Mutex<(second: Int, text: String)>

    /// - Parameter format: the text of a Unix time, in seconds.
    package init(_ format: @escaping @Sendable (Int) -> String) {
        self.format = format
        cache = Mutex((-1, ""))
    }

    /// The current second, its text, and the milliseconds into it.
    package var now: (second: Int, text: String, milliseconds: Int) {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        let second = Int(time.tv_sec)
        let text = cache.withLock { cached in
            if cached.second != second { cached = (second, format(second)) }
            return cached.text
        }
        return (second, text, Int(time.tv_nsec) / 1_000_000)
    }
}
