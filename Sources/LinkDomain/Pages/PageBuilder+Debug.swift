import Foundation
import LinkDomainCore

/// `?d=1`, as Dynamic Links had it: how the link was understood, its parameters, and where each
/// kind of device goes, in the console's words and with the real destinations.
extension PageBuilder {
    func debug(_ request: LinkRequest, strings: PageStrings) -> DebugPage {
        let flows = router.debugFlows(linkQuery: request.linkQuery, pathAndQuery: request.pathAndQueryWithoutDebug).map { flow in
            DebugPage.Flow(platform: strings[Self.device(flow.platform)], outcome: describe(flow.route, strings: strings))
        }
        let items = QueryString(request.linkQuery).readableItems
        var parameters = items.prefix(Self.debugParameters).map { DebugPage.Parameter(name: $0.name, value: $0.value) }
        // A URL of thousands of parameters must not cost thousands of rows: the rest is counted.
        if items.count > Self.debugParameters { parameters.append(DebugPage.Parameter(name: "…", value: "+\(items.count - Self.debugParameters)")) }
        return DebugPage(title: strings[.debugTitle], shape: router.debugShape(request)?.rawValue, parameters: parameters, flows: flows)
    }

    /// The most parameters a debug page lists (a Dynamic Link has about twenty).
    static let debugParameters = 40

    /// A kind of device as the console names it.
    static func device(_ platform: Platform) -> PageText {
        switch platform {
        case .iOS: .debugDeviceIphone
        case .iPadOS: .debugDeviceIpad
        case .android: .debugDeviceAndroid
        case .desktop: .debugDeviceDesktop
        case .bot: .debugDeviceCrawler
        }
    }

    func describe(_ route: DebugFlow.Route, strings: PageStrings) -> String {
        func straight(to url: String) -> String { strings[.debugRedirect].substituting("{link}", with: url) }
        switch route {
        case .action(_, let decision):
            return switch decision {
            case .appLanding(let target): strings[.debugAppLanding].substituting("{app}", with: target.name)
            case .continueToApp(let url): straight(to: url)
            case .webPage: strings[.debugActionPage]
            case .signInInstructions: strings[.signinTitle]
            case .botPage: strings[.debugSocial]
            case .codeEnded(let ending): strings[ending == .expired ? .errorExpiredTitle : .errorInvalidTitle]
            case .phoneOrComputer: strings[.phoneTitle].substituting("{app}", with: appName)
            }
        case .dynamic(let previewFirst, let decision):
            let final =
                switch decision {
                case .redirect(let url, _): straight(to: url)
                case .socialPreview: strings[.debugSocial]
                case .refused, .previewPage: strings[.debugRefused]
                }
            return previewFirst ? strings[.debugPreview].substituting("{next}", with: final) : final
        case .notALink:
            return strings[.errorNotLinkTitle]
        }
    }
}
