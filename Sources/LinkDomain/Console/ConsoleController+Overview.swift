import Foundation
import Hummingbird
import LinkDomainCore
import LinkDomainStorage

/// The console's first page: how the link domain is set up and what it has done.
extension ConsoleController {
    func overview(_ request: Request, session: ConsoleSession) async throws -> Response {
        await linkEvents.flush()
        let today = LinkStatistics.day(ofMilliseconds: clock.nowMilliseconds())
        let totals: [DailyEventTotal]
        let linkCount: Int
        do {
            totals = try await admin.dailyEventTotals(fromDay: today - ConsoleCharts.days + 1)
            linkCount = try await admin.shortLinkCount()
        } catch {
            return message(renderer[.unavailable], in: .overview, session: session, status: .serviceUnavailable)
        }
        let mail = try? await admin.summary()
        let charts = Platform.allCases.compactMap { ConsoleCharts.clicks(totals, platform: $0, today: today, renderer: renderer) }
        let warnings = ConfigurationWarnings.of(configuration)
        let spent = linkEvents.metrics.codesSpent.sorted { $0.key.rawValue < $1.key.rawValue }
        var values: [String: Any] = [
            "mode": configuration.mode.rawValue, "started": RFC3339.readable(milliseconds: startedAt) + " UTC",
            "linkCount": String(linkCount), "mailSent": String(mail?.sent ?? 0),
            "mailSentLabel": renderer[configuration.mailIsOnlyLogged ? .mailsLogged : .mailsSent], "mailQueued": String(mail?.queued ?? 0),
            "mailFailed": String(mail?.failed ?? 0), "charts": charts, "hasCharts": !charts.isEmpty,
            "warnings": warnings, "hasWarnings": !warnings.isEmpty, "version": LinkDomainVersion.current,
            "codes": spent.map { ["mode": $0.key.rawValue, "count": String($0.value)] }, "hasCodes": !spent.isEmpty,
        ]
        let health = await relayHealth()
        values["relayHealth"] = health.text
        values["relayState"] = health.state
        values.merge(doctorValues()) { $1 }
        return renderer.page("console-overview", title: renderer[.overview], chrome: chrome(session, .overview), values: values)
    }
}
