import Foundation
@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage
import Mustache
import Testing

@Suite("The console's templates and strings")
struct ConsoleTemplateTests {
    static var templates: [(name: String, source: String)] {
        PageAssets.builtInFiles.filter { $0.key.hasPrefix("console/templates/") }.map { ($0.key, $0.value) }
    }

    @Test("every template parses, and every string it names is in the table (so none shows its key)")
    func strings() throws {
        let renderer = ConsoleRenderer(appName: "Example")
        #expect(Self.templates.count >= 8 && renderer.library.getTemplate(named: "console-layout") != nil)
        let keys = Set(ConsoleText.allCases.map(\.rawValue))
        for (name, source) in Self.templates {
            #expect(renderer.library.getTemplate(named: String(name.dropFirst("console/templates/".count).dropLast(".mustache".count))) != nil, "\(name)")
            for match in source.matches(of: /\{\{t\.([a-z0-9_]+)\}\}/) {
                #expect(keys.contains(String(match.output.1)), "\(name): t.\(match.output.1)")
            }
            // Values are escaped: no triple mustaches.
            #expect(!source.contains("{{{"), "\(name)")
        }
        #expect(ConsoleText.allCases.allSatisfy { renderer.strings[$0.rawValue] != nil })
    }

    @Test("a chart's bars are clicks, split by what followed them, with totals and the same numbers in its table")
    func chart() throws {
        let renderer = ConsoleRenderer(appName: "Example")
        let totals = [
            DailyEventTotal(day: 100, platform: .iOS, event: .click, count: 4), DailyEventTotal(day: 100, platform: .iOS, event: .redirectToApp, count: 2),
            DailyEventTotal(day: 100, platform: .iOS, event: .redirectToFallback, count: 1),
            DailyEventTotal(day: 100, platform: .iOS, event: .appReOpen, count: 9),
            DailyEventTotal(day: 90, platform: .iOS, event: .click, count: 8), DailyEventTotal(day: 100, platform: .android, event: .click, count: 1),
            DailyEventTotal(day: 50, platform: .iOS, event: .click, count: 1_000),
        ]
        let chart = try #require(ConsoleCharts.clicks(totals, platform: .iOS, today: 100, renderer: renderer))
        let bars = try #require(chart["bars"] as? [[String: Any]])
        // Day 100: a bar of 4 clicks in three parts (app 2, website 1, preview 1), not 4 + 2 + 1 stacked; day 90: one part.
        let full = Int64(ConsoleCharts.height - 10)
        let byDay = Dictionary(grouping: bars) { $0["x"] as? Int ?? -1 }
        #expect(byDay.count == 2)
        let heights = byDay.mapValues { $0.compactMap { $0["h"] as? Int64 }.reduce(0, +) }
        #expect(heights.values.max() == full && heights.values.contains(full / 2))
        #expect(bars.compactMap { $0["label"] as? String }.contains { $0.hasSuffix("Opened the app: 2") })
        let rows = try #require(chart["rows"] as? [[String: Any]])
        // Clicks, then app, store, website, preview.
        #expect(rows.count == 2 && (rows.first?["counts"] as? [String]) == ["4", "2", "0", "1", "1"])
        let totalsShown = try #require(chart["totals"] as? [[String: Any]]).compactMap { $0["count"] as? String }
        #expect(totalsShown == ["12", "2", "0", "1", "9"])
        #expect((chart["dates"] as? [[String: Any]])?.count == 3)
        #expect(ConsoleCharts.clicks(totals, platform: .desktop, today: 100, renderer: renderer) == nil)
        let platforms = ConsoleCharts.platforms(totals, today: 100, renderer: renderer)
        #expect(platforms == [["platform": "iPhone", "clicks": "12"], ["platform": "Android", "clicks": "1"]])
    }
}
