import HTTPTypes
import Hummingbird
import LinkDomainCore
import LinkDomainStorage
import Logging

/// What every page shares: message pages, HTML responses, the form cookie and the visitor's language.
extension ActionPagesController {
    /// A message page that is about no link in particular (``refused(_:link:language:)`` is for one that is).
    func message(_ message: PageMessage, language: String) -> Response {
        let strings = renderer.strings(language)
        return html(message.status, pages.message(message, strings: strings), strings: strings)
    }

    /// The page for a backend's refusal or failure; codes the pages do not expect are logged.
    func failure(_ error: BackendError, language: String, context: Context, link: ActionLink? = nil) -> Response {
        let page = PageMessage(error)
        if page == .refused, case .rejected(let refusal) = error {
            context.logger.warning("backend refused an action", metadata: ["code": .string(refusal.spelling)])
        }
        if let link { return refused(page, link: link, language: language) }
        return message(page, language: language)
    }

    /// The page about `link` that could not be used: what it was for, a way back, "Try again" after
    /// a backend failure, and "Send me a new link" when it expired or was used.
    func refused(_ page: PageMessage, link: ActionLink, language: String) -> Response {
        let strings = renderer.strings(language)
        var model = pages.message(
            page, strings: strings, backTo: link.continueURL.flatMap(router.policy.allowed), mode: link.mode,
            retryURL: pages.actionPageURL(link))
        if page == .expiredCode || page == .invalidCode { model.newLink = newLinkForm(for: link, language: language) }
        return html(page.status, model, strings: strings)
    }

    func html(_ status: HTTPResponse.Status, _ page: any PageModel, strings: PageStrings) -> Response {
        var response = renderer.response(status, page, strings: strings).response
        // A backend or database away: the same link may work in a moment.
        if status == .serviceUnavailable { response.headers[.retryAfter] = "5" }
        return response
    }
}
