import HTTPTypes
import Hummingbird
import LinkDomainCore
import LinkDomainStorage

/// A link the pages ask to have mailed: "Send me a new link" from an expired or used link's page,
/// and "Send me a link to change my password" after an address was restored.
struct PageLinkMail: Sendable, Equatable {
    var requestType: OobRequestType
    var email: String
    var language: String
    /// Where the new link leads after it is used: the old link's continue URL, already allowed.
    var continueURL: String?
    /// The old link was asked for by an app: the new one is too (the app form, handled in the app).
    var forApp = false
    /// The asking client's address, for its mail budget.
    var client: String
}

/// "Send me a new link": an expired or used sign-in, password-reset or verify-email link's page asks
/// for the address it went to and mails a new link of the same kind there (the same continue URL,
/// asked for by an app when the old one was). The answer is the same
/// page whether or not the address has an account, and comes before any lookup (the mailer works
/// after the answer), so neither its words nor its timing tell.
extension ActionPagesController {
    /// The modes a new link can be asked for from the page: the ones a person asks for themselves.
    static var renewableModes: Set<ActionMode> { [.signIn, .resetPassword, .verifyEmail] }

    /// The form under an expired or used link's error, or nil when none applies (another mode, no
    /// mail, a sign-in without an allowed continue URL to sign in at).
    func newLinkForm(for link: ActionLink, language: String) -> NewLinkForm? {
        guard mailLink != nil, Self.renewableModes.contains(link.mode) else { return nil }
        let continueURL = link.continueURL.flatMap(router.policy.allowed)
        if link.mode == .signIn, continueURL == nil { return nil }
        // The code is spent or expired: only the link's shape can say whether an app asked for it.
        let forApp = CodeFacts.shapeSaysAskedByApp(link)
        var fields = [HiddenField(name: "mode", value: link.mode.rawValue), HiddenField(name: "lang", value: language)]
        if let continueURL { fields.append(HiddenField(name: "continueUrl", value: continueURL)) }
        if forApp { fields.append(HiddenField(name: "app", value: "1")) }
        let token = formToken.newLinkToken(mode: link.mode.rawValue, continueURL: continueURL, forApp: forApp, issuedAt: clock.nowSeconds)
        fields.append(HiddenField(name: "t", value: token))
        return NewLinkForm(fields: fields)
    }

    /// The POST of "Send me a new link": 303 to the page that says a link is on its way.
    func requestNewLink(_ request: Request, client: String) async -> Response {
        guard let body = try? await request.body.collect(upTo: PageForm.maximumBytes),
            let form = try? URLEncodedFormDecoder().decode(NewLinkFields.self, from: String(buffer: body))
        else { return message(.notALink, language: language(request, preferring: nil)) }
        let language = language(request, preferring: form.lang)
        if let site = request.headers[.secFetchSite], site != "same-origin" { return message(.formExpired, language: language) }
        let continueURL = form.continueUrl.flatMap { $0.isEmpty ? nil : $0 }
        let forApp = form.app == "1"
        guard let mailLink, let mode = ActionMode(rawValue: form.mode), Self.renewableModes.contains(mode),
            formToken.isValidNewLink(form.t, mode: form.mode, continueURL: continueURL, forApp: forApp, now: clock.nowSeconds)
        else { return message(.formExpired, language: language) }
        // An address that is not one gets the same answer: the page tells nothing.
        if let address = MailAddress(form.email) {
            mailLink(
                PageLinkMail(
                    requestType: mode.requestType, email: address.value, language: language,
                    continueURL: continueURL.flatMap(router.policy.allowed), forApp: forApp, client: client))
        }
        return ImmediateResponse.redirect(.seeOther, to: RoutePaths.newLink + "?lang=" + language).response
    }

    /// Where "Send me a new link" leads: "If this address has an account, a new link is on its way".
    /// It does and reveals nothing, so it needs no signature.
    func newLinkSentPage(_ request: Request) -> Response {
        message(.newLinkSent, language: language(request, preferring: QueryString(Substring(request.uri.query ?? ""))["lang"]))
    }

    struct NewLinkFields: Decodable {
        var mode: String
        var email: String
        var lang: String?
        var continueUrl: String?
        var app: String?
        var t: String
    }
}
