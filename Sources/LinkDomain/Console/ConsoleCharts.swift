import LinkDomainCore
import LinkDomainStorage

/// Bar charts of events per day, drawn as SVG on the server: one bar a day, stacked by event,
/// with the same numbers as a table beside it (which is what a screen reader reads; the drawing
/// is hidden from it). Pure: counts in, a template's values out.
enum ConsoleCharts {
    static let days = 30
    static let height = 160
    static let barWidth = 16
    /// A day's width: its bar and the gap beside it.
    static let step = 20
    static var width: Int { days * step }

    /// The chart of the 30 days ending `today` (days since 1970) for `platform`, or every platform
    /// together; nil when nothing happened in them.
    static func clicks(_ totals: [DailyEventTotal], platform: Platform?, today: Int, renderer: ConsoleRenderer) -> [String: Any]? {
        let first = today - days + 1
        var counts: [LinkEvent: [Int64]] = [:]
        for total in totals where (platform == nil || total.platform == platform) && (first...today).contains(total.day) {
            counts[total.event, default: Array(repeating: 0, count: days)][total.day - first] &+= max(0, total.count)
        }
        let events = LinkEvent.allCases.filter { counts[$0] != nil }
        guard !events.isEmpty else { return nil }
        let dayTotals = (0..<days).map { day in events.reduce(Int64(0)) { $0 &+ (counts[$1]?[day] ?? 0) } }
        let peak = max(1, dayTotals.max() ?? 1)
        let plot = Int64(height - 10)
        var bars: [[String: Any]] = []
        for day in 0..<days {
            var top = Int64(height)
            for (series, event) in events.enumerated() {
                let count = counts[event]?[day] ?? 0
                guard count > 0 else { continue }
                // At least a pixel: a day with a few clicks beside a busy one is still seen.
                let barHeight = max(1, count.multipliedReportingOverflow(by: plot).partialValue / peak)
                top -= barHeight
                bars.append([
                    "x": day * step + (step - barWidth) / 2, "y": top, "w": barWidth, "h": barHeight, "series": series,
                    "label": "\(RFC3339.day(milliseconds: Int64(first + day) * 86_400_000)) \(event.rawValue): \(count)",
                ])
            }
        }
        let platformName = platform.map { name($0, renderer: renderer) } ?? renderer[.allPlatforms]
        return [
            "caption": renderer.format(.clicksChartCaption, ["platform": platformName]),
            "tableLabel": renderer.format(.clicksTableCaption, ["platform": platformName]),
            "dayLabel": renderer[.day], "width": width, "height": height, "baseline": height, "bars": bars,
            "legend": events.enumerated().map { ["series": $0.offset, "label": $0.element.rawValue] },
            "rows": (0..<days).reversed().filter { dayTotals[$0] > 0 }.map { day -> [String: Any] in
                [
                    "day": RFC3339.day(milliseconds: Int64(first + day) * 86_400_000),
                    "counts": events.map { String(counts[$0]?[day] ?? 0) },
                ]
            },
        ]
    }

    /// A platform as the console names it in the operator's language (the devices' own names aside).
    static func name(_ platform: Platform, renderer: ConsoleRenderer) -> String {
        switch platform {
        case .iOS: "iPhone"
        case .iPadOS: "iPad"
        case .android: "Android"
        case .desktop: renderer[.deviceDesktop]
        case .bot: renderer[.deviceCrawler]
        }
    }
}
