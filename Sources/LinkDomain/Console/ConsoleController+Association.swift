import Foundation
import Hummingbird

/// The association files in the console: exactly as served, what each claims for each app, and
/// the checks the configuration passed.
extension ConsoleController {
    func addAssociationRoutes(to routes: RouteCollection<Context>) {
        routes.get(RouterPath("\(Self.base)/association")) { request, context in
            try await page(request, context: context) { _, session in association(session: session) }
        }
    }

    private func association(session: ConsoleSession) -> Response {
        let emailPaths = RoutePaths.actionLinkPaths(customActionPath: configuration.actionPath)
        let values: [String: Any] = [
            "apple": files.apple.text, "android": files.android.text,
            "appleSize": renderer.format(.bytes, ["count": String(files.apple.bytes.count)]),
            "appleApps": configuration.apple.apps.map { app -> [String: Any] in
                var claims = emailPaths + app.paths
                if app.webcredentials { claims.append("webcredentials") }
                if app.appClip { claims.append("appclips") }
                return ["id": app.appID, "claims": claims.joined(separator: ", ")]
            },
            "androidApps": configuration.android.apps.map { ["id": $0.packageName, "claims": $0.fingerprints.joined(separator: ", ")] },
            "checks": [renderer[.checkOk]] + ConfigurationWarnings.of(configuration),
        ]
        return renderer.page("console-association", title: renderer[.association], chrome: chrome(session, .association), values: values)
    }
}
