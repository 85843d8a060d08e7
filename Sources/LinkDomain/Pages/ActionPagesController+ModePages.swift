import Foundation
import HTTPTypes
import Hummingbird
import LinkDomainCore
import LinkDomainStorage

/// The result page a completed form redirects to, and the mail a restored address may ask for.
extension ActionPagesController {
    /// The result page: "done" for the action a form completed, signed so that nobody else can
    /// make one; safe to reload and to reach with Back (it spends and asks nothing).
    func resultPage(_ request: Request) -> Response {
        let query = QueryString(Substring(request.uri.query ?? ""))
        let language = language(request, preferring: query["lang"])
        let email = query["email"]
        guard let modeName = query["mode"], let mode = ActionMode(rawValue: modeName), let token = query["t"],
            formToken.isValidResult(token, mode: modeName, language: language, continueURL: query["continueUrl"], email: email, now: clock.nowSeconds)
        else { return message(.notALink, language: language) }
        let strings = renderer.strings(language)
        var page = pages.message(.done(mode, continueURL: query["continueUrl"].flatMap(router.policy.allowed)), strings: strings)
        // The address is back: name it, and offer the password change the page advises, mailed to that address.
        if mode == .recoverEmail, let email {
            page.paragraphs = [strings[.recoverDoneNamed].substituting("{email}", with: email)]
            if mailLink != nil {
                page.resetRequest = ResetRequestForm(fields: [
                    HiddenField(name: "email", value: email), HiddenField(name: "lang", value: language),
                    HiddenField(name: "t", value: formToken.resetRequestToken(email: email, issuedAt: clock.nowSeconds)),
                ])
            }
        }
        let visitor = PlatformClassifier.classify(userAgent: request.headers[.userAgent], platformHint: request.headers[.secCHUAPlatform])
        pages.openAppAfterSuccess(&page, visitor: visitor, strings: strings)
        return html(.ok, page, strings: strings)
    }

    /// The POST of "send me a link to change my password": mails a reset link to the restored address.
    func requestReset(_ request: Request, client: String) async -> Response {
        guard let body = try? await request.body.collect(upTo: PageForm.maximumBytes),
            let form = try? URLEncodedFormDecoder().decode(ResetRequestFields.self, from: String(buffer: body))
        else { return message(.notALink, language: language(request, preferring: nil)) }
        let language = language(request, preferring: form.lang)
        if let site = request.headers[.secFetchSite], site != "same-origin" { return message(.formExpired, language: language) }
        guard let mailLink, formToken.isValidResetRequest(form.t, email: form.email, now: clock.nowSeconds) else {
            return message(.formExpired, language: language)
        }
        // The token says this page restored the address: it has an account, and the page may name it.
        mailLink(PageLinkMail(requestType: .passwordReset, email: form.email, language: language, continueURL: nil, client: client))
        let strings = renderer.strings(language)
        var page = pages.message(.resetRequested, strings: strings)
        page.paragraphs = [strings[.resetRequestedNamed].substituting("{email}", with: form.email)]
        return html(.ok, page, strings: strings)
    }

    struct ResetRequestFields: Decodable {
        var email: String
        var lang: String?
        var t: String
    }

    /// Where a completed form sends the browser (303): the signed result page.
    func resultLocation(mode: ActionMode, language: String, continueURL: String?, email: String? = nil) -> String {
        var pairs = [("mode", mode.rawValue), ("lang", language)]
        if let continueURL { pairs.append(("continueUrl", continueURL)) }
        if let email { pairs.append(("email", email)) }
        pairs.append(
            (
                "t",
                formToken.resultToken(
                    mode: mode.rawValue, language: language, continueURL: continueURL, email: email,
                    issuedAt: clock.nowSeconds)
            ))
        return RoutePaths.actionResult + "?" + pairs.map { "\($0)=\(ActionLinkEncoder.percentEncode($1))" }.joined(separator: "&")
    }

    /// The demo's continue URL: it stands in for the app's own page and spends nothing (a sign-in's
    /// code arrives in its query, as it would at the app's page, and is not read).
    func demoContinuePage(_ request: Request) -> Response {
        let language = language(request, preferring: QueryString(Substring(request.uri.query ?? ""))["lang"])
        let strings = renderer.strings(language)
        let page = MessagePage(
            title: strings[.demoContinueTitle].substituting("{app}", with: pages.appName),
            paragraphs: [strings[.demoContinueBody]])
        return html(.ok, page, strings: strings)
    }
}
