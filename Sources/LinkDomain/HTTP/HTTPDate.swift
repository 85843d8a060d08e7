import Foundation
import LinkDomainCore
import LinkDomainStorage

/// `Date` header values (RFC 9110 §5.6.7), formatted at most once a second.
enum HTTPDate {
    private static let clock = SecondText(format)

    static var now: String { current.text }

    /// The current second, and its `Date` value.
    static var current: (second: Int, text: String) {
        let now = clock.now
        return (now.second, now.text)
    }

    static func format(_ second: Int) -> String {
        var time = time_t(second)
        var parts = tm()
        gmtime_r(&time, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
