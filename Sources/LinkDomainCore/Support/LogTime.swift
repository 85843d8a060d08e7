#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Log lines' times, `2026-11-22T10:00:00.000Z` (UTC, milliseconds), with the part up to the
/// second formatted once a second: a request's log line is written for every request, and
/// Foundation's ISO 8601 formatter cost more than the rest of the line.
package enum LogTime {
    private static let clock = SecondText { format(second: $0) }

    package static var now: String {
        let (second, milliseconds) = nowParts
        return second + "." + digits(milliseconds, count: 3) + "Z"
    }

    /// The current second's text (`YYYY-MM-DDThh:mm:ss`) and the milliseconds into it, for a line
    /// written as bytes.
    package static var nowParts: (second: String, milliseconds: Int) {
        let now = clock.now
        return (now.text, now.milliseconds)
    }

    /// `YYYY-MM-DDThh:mm:ss` of a Unix time.
    package static func format(second: Int) -> String {
        var time = time_t(second)
        var parts = tm()
        gmtime_r(&time, &parts)
        return digits(Int(parts.tm_year) + 1900, count: 4) + "-" + digits(Int(parts.tm_mon) + 1, count: 2) + "-" + digits(Int(parts.tm_mday), count: 2)
            + "T" + digits(Int(parts.tm_hour), count: 2) + ":" + digits(Int(parts.tm_min), count: 2) + ":" + digits(Int(parts.tm_sec), count: 2)
    }

    /// A duration in milliseconds with three decimals (`0.123`), without Foundation's formatter.
    package static func milliseconds(_ duration: Duration) -> String {
        let micros = microseconds(duration)
        return String(micros / 1000) + "." + digits(Int(micros % 1000), count: 3)
    }

    /// Whole microseconds of a duration, never negative.
    package static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        // Clamped: a request is never near 2^40 seconds, and the product then cannot overflow.
        return min(max(0, seconds), 1 << 40) * 1_000_000 + max(0, attoseconds) / 1_000_000_000_000
    }

    /// `value` with leading zeros to `count` digits.
    package static func digits(_ value: Int, count: Int) -> String {
        let text = String(value)
        return text.utf8.count >= count ? text : String(repeating: "0", count: count - text.utf8.count) + text
    }
}
