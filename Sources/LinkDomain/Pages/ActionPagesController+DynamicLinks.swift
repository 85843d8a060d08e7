import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Dynamic Links that are not email actions: the preview page, the crawlers' page of meta tags,
/// and the `?d=1` page that shows where each kind of device would go.
extension ActionPagesController {
    func dynamicLink(_ link: DynamicLink, decision: DynamicLinkDecision, request: Request, visitor: Visitor, language: String,
                             suffix: String?) async -> Response {
        let pathAndQuery = ownPathAndQuery(request)
        switch decision {
        case .socialPreview:
            return socialPage(link.hints, fallbackTitle: WebAddress(link.deepLink)?.host, language: language)
        case .previewPage(let app, let continueURL):
            let strings = renderer.table(language)
            var values: [String: Any] = ["title": link.hints.socialTitle ?? strings["preview_title"] ?? ""]
            values["description"] = link.hints.socialDescription
            values["continueURL"] = continueURL
            // The buttons lead on with the preview skipped.
            let onward = pathAndQuery + (request.uri.query == nil ? "?" : "&") + "efr=1"
            switch app?.kind {
            case .apple?:
                if let pivot = configuration.pivotBaseURL { values["openURL"] = pivot + onward }
                values["storeURL"] = app?.storeURL
                values["storeLabel"] = strings["get_app_store"]
            case .android(let android)?:
                values["openURL"] = LinkRouter.androidIntent(host: configuration.publicHost, pathAndQuery: onward, package: android.packageName,
                                                             fallback: link.hints.androidFallbackURL.flatMap(policy.allowed) ?? app?.storeURL ?? "")
                values["storeURL"] = app?.storeURL
                values["storeLabel"] = strings["get_app_play"]
            case nil:
                break
            }
            return htmlResponse(.ok, renderer.render("preview", language: language, values: values))
        case .redirect(let url, let event):
            if let suffix { record(event, suffix: suffix, visitor: visitor, request: request) }
            return LinkDecider.redirect(.found, to: url).response
        case .refused:
            return message(.badRequest, language: language, title: "error_redirect_title", body: ["error_redirect_body"])
        }
    }

    /// What crawlers (Slack, iMessage, X, Facebook, WhatsApp, LinkedIn) read to draw a preview card.
    func socialPage(_ hints: PlatformHints, fallbackTitle: String?, language: String) -> Response {
        var values: [String: Any] = ["title": hints.socialTitle ?? fallbackTitle ?? configuration.publicHost]
        values["description"] = hints.socialDescription
        values["imageURL"] = hints.socialImageURL.flatMap { WebAddress($0)?.scheme == "https" ? $0 : nil }
        return htmlResponse(.ok, renderer.render("social", language: language, values: values))
    }

    /// `?d=1`: the link's parameters and where each kind of device would go, as Dynamic Links showed it.
    func debugPage(linkQuery: Substring, language: String) -> Response {
        let strings = renderer.table(language)
        let parameters = QueryString(linkQuery).items.map { ["name": $0.name, "value": $0.value] }
        var flows: [[String: String]] = []
        for platform in [Platform.iOS, .iPadOS, .android, .desktop, .bot] {
            let outcome: String
            if case .success(let link) = LinkParser.parse(path: "/", query: linkQuery) {
                outcome = switch LinkRouter.decide(link, visitor: Visitor(platform: platform), appleApps: configuration.appleApps,
                                                   androidApps: configuration.androidApps, policy: policy) {
                case .appLanding(let target): "\(strings["debug_app_landing"] ?? "") (\(target.name))"
                case .continueToApp(let url): "\(strings["debug_redirect"] ?? "") \(url)"
                case .webPage: link.mode.rawValue
                case .signInInstructions: strings["signin_title"] ?? ""
                case .botPage: strings["debug_social"] ?? ""
                }
            } else if var dynamic = LinkParser.parseDynamicLink(query: linkQuery) {
                let preview = !dynamic.hints.skipPreviewPage && platform.isMobile
                dynamic.hints.skipPreviewPage = true
                let final = switch LinkRouter.decide(dynamic, visitor: Visitor(platform: platform), appleApps: configuration.appleApps,
                                                     androidApps: configuration.androidApps, policy: policy,
                                                     intentHost: configuration.publicHost, pathAndQuery: "/") {
                case .redirect(let url, _): "\(strings["debug_redirect"] ?? "") \(url)"
                case .socialPreview: strings["debug_social"] ?? ""
                case .refused, .previewPage: strings["debug_refused"] ?? ""
                }
                outcome = preview ? "\(strings["debug_preview"] ?? "") \(final)" : final
            } else {
                outcome = strings["error_not_link_title"] ?? ""
            }
            flows.append(["platform": platform.rawValue, "outcome": outcome])
        }
        let values: [String: Any] = ["title": strings["debug_title"] ?? "", "parameters": parameters, "flows": flows]
        return htmlResponse(.ok, renderer.render("debug", language: language, values: values))
    }
}
