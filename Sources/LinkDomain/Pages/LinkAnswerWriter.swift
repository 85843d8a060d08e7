import LinkDomainCore
import LinkDomainStorage
import Logging

/// Writes out a ``LinkAnswer``: its redirect, or its page in its language. The event-loop fast
/// path and the router's pages both answer links through it, so neither decides anything.
struct LinkAnswerWriter: Sendable {
    let pages: PageBuilder
    let renderer: PageRenderer

    /// The response for `answer`; nil for the answers that need what the backend's check of the
    /// code said (the form, the ending: ``ActionPagesController``).
    func response(_ answer: LinkAnswer, link: LinkRequest, visitor: Visitor, logger: Logger) -> ImmediateResponse? {
        switch answer.reply {
        case .redirect(let status, let location):
            return .redirect(status, to: location)
        case .actionPage, .checkCode, .codeEnded:
            return nil
        case .page(let page):
            let strings = renderer.strings(answer.language)
            return renderer.response(page.status, model(page, link: link, visitor: visitor, strings: strings, logger: logger), strings: strings)
        }
    }

    private func model(_ page: LinkPage, link: LinkRequest, visitor: Visitor, strings: PageStrings, logger: Logger) -> any PageModel {
        switch page {
        case .debug:
            return pages.debug(link, strings: strings)
        case .notALink:
            return pages.message(.notALink, strings: strings)
        case .social(let hints, let fallbackTitle):
            return pages.social(hints, fallbackTitle: fallbackTitle)
        case .neutral:
            return pages.message(.neutral, strings: strings)
        case .preview(let dynamic, let app, let continueURL):
            return pages.preview(dynamic, app: app, continueURL: continueURL, request: link, strings: strings)
        case .appLanding(let target, let action, let appDidNotOpen):
            return pages.landing(target, link: action, visitor: visitor, request: link, strings: strings, appDidNotOpen: appDidNotOpen)
        case .signInInstructions:
            var page = pages.message(.signInInstructions, strings: strings)
            // A link meant for the phone, opened on a computer: the same link, to scan (opening it spends nothing).
            if visitor.platform == .desktop { pages.addQRCode(&page, link: link) }
            return page
        case .phoneOrComputer(_, let continueURL):
            return pages.phoneOrComputer(link: link, continueURL: continueURL, strings: strings)
        case .redirectRefused(let host):
            if let host {
                logger.notice("continue URL refused: host not in authorizedDomains", metadata: ["host": .string(host)])
            }
            return pages.message(.redirectRefused, strings: strings)
        }
    }
}
