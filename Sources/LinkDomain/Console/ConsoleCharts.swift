import LinkDomainCore
import LinkDomainStorage

/// Bar charts of clicks per day, drawn as SVG on the server: one bar a day as tall as its clicks,
/// split by what followed each click (the app opened, the store, the website, or the preview page
/// and nothing more), dates under the axis, the totals beside it, and the same numbers as a table
/// (which is what a screen reader reads; the drawing is hidden from it). Pure: counts in, a
/// template's values out.
enum ConsoleCharts {
    static let days = 30
    static let height = 160
    static let barWidth = 16
    /// A day's width: its bar and the gap beside it.
    static let step = 20
    static var width: Int { days * step }

    /// What followed a click, in the order a bar stacks them from its foot.
    enum Outcome: Int, CaseIterable {
        case app, store, website, preview

        var text: ConsoleText {
            switch self {
            case .app: .followedApp
            case .store: .followedStore
            case .website: .followedWebsite
            case .preview: .followedPreview
            }
        }
    }

    /// A day's clicks and what followed them: the redirects counted with them, and the clicks no
    /// redirect followed (a preview or a page, and nothing more).
    struct Day {
        var clicks: Int64 = 0
        var app: Int64 = 0
        var store: Int64 = 0
        var website: Int64 = 0

        mutating func add(_ event: LinkEvent, _ count: Int64) {
            switch event {
            case .click: clicks &+= count
            case .redirectToApp: app &+= count
            case .redirectToStore: store &+= count
            case .redirectToFallback: website &+= count
            case .appInstall, .appFirstOpen, .appReOpen: break
            }
        }

        func count(_ outcome: Outcome) -> Int64 {
            switch outcome {
            case .app: app
            case .store: store
            case .website: website
            case .preview: max(0, clicks &- app &- store &- website)
            }
        }
    }

    /// The chart of the 30 days ending `today` (days since 1970) for `platform`, or every platform
    /// together; nil when nothing was clicked in them.
    static func clicks(_ totals: [DailyEventTotal], platform: Platform?, today: Int, renderer: ConsoleRenderer) -> [String: Any]? {
        let first = today - days + 1
        var series = Array(repeating: Day(), count: days)
        for total in totals where (platform == nil || total.platform == platform) && (first...today).contains(total.day) {
            series[total.day - first].add(total.event, max(0, total.count))
        }
        guard series.contains(where: { $0.clicks > 0 }) else { return nil }
        let peak = max(1, series.map(\.clicks).max() ?? 1)
        let plot = Int64(height - 10)
        func date(_ day: Int) -> String { RFC3339.day(milliseconds: Int64(first + day) * 86_400_000) }
        var bars: [[String: Any]] = []
        for (index, day) in series.enumerated() where day.clicks > 0 {
            // At least a pixel: a day with a few clicks beside a busy one is still seen.
            let barHeight = max(1, day.clicks.multipliedReportingOverflow(by: plot).partialValue / peak)
            var top = Int64(height)
            var drawn: Int64 = 0
            for outcome in Outcome.allCases {
                let count = day.count(outcome)
                guard count > 0 else { continue }
                // Parts share the bar's height in proportion; the last takes what rounding left.
                let part = outcome == Outcome.allCases.last ? barHeight - drawn : count.multipliedReportingOverflow(by: barHeight).partialValue / day.clicks
                guard part > 0 else { continue }
                drawn += part
                top -= part
                bars.append([
                    "x": index * step + (step - barWidth) / 2, "y": top, "w": barWidth, "h": part, "series": outcome.rawValue,
                    "label": "\(date(index)) \(renderer[outcome.text]): \(count)",
                ])
            }
        }
        let platformName = platform.map { name($0, renderer: renderer) } ?? renderer[.allPlatforms]
        let sum = { (value: (Day) -> Int64) in series.reduce(Int64(0)) { $0 &+ value($1) } }
        return [
            "caption": renderer.format(.clicksChartCaption, ["platform": platformName]),
            "tableLabel": renderer.format(.clicksTableCaption, ["platform": platformName]),
            "dayLabel": renderer[.day], "clicksLabel": renderer[.clicks], "width": width, "height": height,
            "baseline": height, "bars": bars,
            // The first, middle and last day under the axis (the table holds every date for screen readers).
            "dates": [0, days / 2, days - 1].map { ["text": date($0)] },
            "legend": Outcome.allCases.map { ["series": $0.rawValue, "label": renderer[$0.text]] },
            "totals": [["label": renderer[.clicks], "count": String(sum(\.clicks)), "series": -1]]
                + Outcome.allCases.map { outcome -> [String: Any] in
                    ["label": renderer[outcome.text], "count": String(sum { $0.count(outcome) }), "series": outcome.rawValue]
                },
            "rows": (0..<days).reversed().filter { series[$0].clicks > 0 }.map { day -> [String: Any] in
                ["day": date(day), "counts": [String(series[day].clicks)] + Outcome.allCases.map { String(series[day].count($0)) }]
            },
        ]
    }

    /// Clicks by platform over the same 30 days, for a link's page: "iPhone or Android?".
    static func platforms(_ totals: [DailyEventTotal], today: Int, renderer: ConsoleRenderer) -> [[String: String]] {
        let first = today - days + 1
        return Platform.allCases.compactMap { platform in
            let clicks = totals.filter { $0.platform == platform && $0.event == .click && (first...today).contains($0.day) }
                .reduce(Int64(0)) { $0 &+ max(0, $1.count) }
            return clicks > 0 ? ["platform": name(platform, renderer: renderer), "clicks": String(clicks)] : nil
        }
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
