import Hummingbird

/// Dynamic Links that are not email actions: the preview page, the crawlers' page of meta tags, or
/// straight on.
extension ActionPagesController {
    func dynamicLink(_ dynamic: DynamicLink, decision: DynamicLinkDecision, link: LinkRequest, request: Request, visitor: Visitor,
                     language: String, suffix: String?) -> Response {
        let strings = renderer.strings(language)
        switch decision {
        case .socialPreview:
            return html(.ok, pages.social(dynamic.hints, fallbackTitle: WebAddress(dynamic.deepLink)?.host), strings: strings)
        case .previewPage(let app, let continueURL):
            return html(.ok, pages.preview(dynamic, app: app, continueURL: continueURL, request: link, strings: strings), strings: strings)
        case .redirect(let url, let event):
            if let suffix { record(event, suffix: suffix, visitor: visitor, request: request) }
            return ImmediateResponse.redirect(.found, to: url).response
        case .refused:
            return message(.redirectRefused, language: language)
        }
    }
}
