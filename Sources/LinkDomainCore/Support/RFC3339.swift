import Foundation

/// Times as Google's APIs write them: `2026-11-25T07:09:13.123Z`.
package enum RFC3339 {
    package static func string(milliseconds: Int64) -> String {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000).formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: true)
                .timeZone(separator: .omitted).dateSeparator(.dash).timeSeparator(.colon).dateTimeSeparator(.standard))
    }

    /// For people: `2026-11-25 07:45:25`, still UTC.
    package static func readable(milliseconds: Int64) -> String {
        string(milliseconds: milliseconds).prefix(19).replacingOccurrences(of: "T", with: " ")
    }

    /// The day alone: `2026-11-25`.
    package static func day(milliseconds: Int64) -> String {
        String(string(milliseconds: milliseconds).prefix(10))
    }
}
