import Foundation
import LinkDomainCore

/// The pages that hand a link to the phone: a QR code of the same link on this domain, drawn by
/// the server (scanning it opens the link there; opening spends nothing).
extension PageBuilder {
    /// Adds the QR code of this request's link (`request.ownPathAndQuery` on this service's origin).
    func addQRCode(_ page: inout MessagePage, link request: LinkRequest) {
        guard let code = QRCode(Array((publicBaseURL + request.ownPathAndQuery).utf8)) else { return }
        page.qrPath = code.svgPath()
        page.qrSide = code.size + 8
    }

    /// A sign-in an app asked for, opened on a computer: "Open on your phone" (the QR code) first,
    /// "Continue on this computer" (the sign-in's continuation, already allowed) second.
    func phoneOrComputer(link request: LinkRequest, continueURL: String, strings: PageStrings) -> MessagePage {
        var page = MessagePage(
            title: strings[.phoneTitle].substituting("{app}", with: appName),
            paragraphs: [strings[.phoneBody].substituting("{app}", with: appName)])
        addQRCode(&page, link: request)
        page.actionURL = continueURL
        page.actionLabel = strings[.continueOnComputer]
        page.actionSecondary = true
        return page
    }
}
