import HTTPTypes
import LinkDomainCore
import LinkDomainStorage

/// An email action's form, once the backend has said its code is live: written alike by the
/// router's page (``ActionPagesController``) and by the event loop (``ImmediateModeForms``).
struct ModeFormWriter: Sendable {
    let pages: PageBuilder
    let renderer: PageRenderer
    let formToken: FormToken
    let clock: any WallClock

    /// The form for `link`, carrying a token bound to its code; nil when the code is for another
    /// action than the link's mode (the caller answers that refusal).
    func response(_ link: ActionLink, info: CodeInfo, language: String, error: String? = nil, status: HTTPResponse.Status = .ok)
        -> ImmediateResponse?
    {
        guard info.requestType == link.mode.requestType else { return nil }
        let token = formToken.token(mode: link.mode.rawValue, code: link.oobCode, issuedAt: clock.nowSeconds)
        let strings = renderer.strings(language)
        return renderer.response(
            status,
            pages.modeForm(
                link, email: info.email, newEmail: info.newEmail, formToken: token, error: error,
                strings: strings), strings: strings)
    }
}
