import Foundation
import Hummingbird
import LinkDomainCore
import LinkDomainStorage

/// The association files in the console: exactly as served, what each claims for each app, and
/// the checks the configuration passed.
extension ConsoleController {
    func addAssociationRoutes(to routes: RouterGroup<Context>) {
        routes.get(RouterPath("\(Self.base)/association")) { request, context in
            try await page(request, context: context) { request, session in association(request, session: session) }
        }
        routes.post(RouterPath("\(Self.base)/association/doctor")) { request, context in
            try await change(request, context: context) { session, _ in
                let ran = await doctor.run(now: { [clock] in clock.nowMilliseconds() })
                if ran { AuditLog.record(actor: session.actor, action: "console.doctor", object: configuration.publicBaseURL, logger: context.logger) }
                return redirect(to: "\(Self.base)/association?done=\(ran ? "doctor" : "doctor-busy")#doctor")
            }
        }
    }

    /// The latest doctor run's findings for a page: severity, subject, message and fix.
    func doctorValues() -> [String: Any] {
        guard let run = doctor.latest else { return ["doctorRan": false] }
        return [
            "doctorRan": true, "doctorAt": RFC3339.readable(milliseconds: run.finishedAt) + " UTC",
            "findings": run.findings.map { finding -> [String: Any] in
                var row: [String: Any] = ["severity": finding.severity.rawValue, "subject": finding.subject, "message": finding.message]
                // On a developer's laptop, plain http and Apple's CDN never seeing the host are normal.
                if finding.expectedInDevelopment, configuration.mode == .development { row["expected"] = renderer[.expectedInDevelopment] }
                if let fix = finding.fix, finding.severity != .ok { row["fix"] = fix }
                return row
            },
        ]
    }

    private func association(_ request: Request, session: ConsoleSession) -> Response {
        var values: [String: Any] = [
            "doctorToken": token(session, "\(Self.base)/association/doctor"), "publicBaseURL": configuration.publicBaseURL,
            "apple": files.apple.text, "android": files.android.text,
            "appleSize": renderer.format(.bytes, ["count": String(files.apple.bytes.count)]),
            "appleApps": AppleFileClaims.of(files.apple.bytes).map { ["id": $0.appID, "claims": $0.claims.joined(separator: ", ")] },
            "androidApps": configuration.android.apps.map { ["id": $0.packageName, "claims": $0.fingerprints.joined(separator: ", ")] },
            "checks": [renderer[.checkOk]] + ConfigurationWarnings.of(configuration),
        ]
        values.merge(doctorValues()) { $1 }
        let notice: String? =
            switch request.uri.queryParameters["done"] {
            case "doctor"?: renderer[.doctorDone]
            case "doctor-busy"?: renderer[.doctorBusy]
            default: nil
            }
        return renderer.page(
            "console-association", title: renderer[.association], chrome: chrome(session, .association), values: values,
            notice: notice)
    }
}
