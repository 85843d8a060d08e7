import HTTPTypes
import Hummingbird
import LinkDomainCore
import LinkDomainStorage

/// The fields a page's form posts: the link it carries, the form token, and the new password.
package struct PageForm: Decodable, Sendable {
    var mode: String?
    var oobCode: String?
    var form: String?
    var lang: String?
    var apiKey: String?
    var tenantId: String?
    var continueUrl: String?
    var newPassword: String?
    var confirmPassword: String?

    /// The largest body a page's form sends (a code, a token, a continue URL and two passwords).
    static let maximumBytes = 16 * 1024

    /// Decodes a form body; nil for anything that is not one (bad escapes, repeated fields).
    package static func decode(_ body: String) -> PageForm? {
        try? URLEncodedFormDecoder().decode(PageForm.self, from: body)
    }
}

/// Why a new password was refused, carried to the form's GET (Post/Redirect/Get): the browser's
/// Back and reload never post again, and no password is ever written into a page or a URL.
enum FormRefusal: String, Sendable {
    case missing, differ, weak

    /// The refusal of what the form sent, or nil when the backend may judge the password.
    init?(newPassword: String, confirmation: String) {
        if newPassword.isEmpty {
            self = .missing
        } else if newPassword != confirmation {
            self = .differ
        } else {
            return nil
        }
    }

    var text: PageText {
        switch self {
        case .missing: .passwordMissing
        case .differ: .passwordsDiffer
        case .weak: .weakPassword
        }
    }

    /// The query parameter that carries it.
    static let parameter = "refused"
}

/// The POST of a page's own form: the only place a code is spent.
extension ActionPagesController {
    /// 303 back to the link's form in this browser (`web=1`), saying why: on this host, whatever the public one is.
    func refusalRedirect(_ link: ActionLink, _ refusal: FormRefusal) -> Response {
        let form = pages.actionPageURL(link, baseURL: "") + "&web=1&\(FormRefusal.parameter)=\(refusal.rawValue)"
        return ImmediateResponse.redirect(.seeOther, to: form).response
    }

    func submit(_ request: Request, context: Context) async -> Response {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: PageForm.maximumBytes)
        } catch {
            return message(.bodyTooLarge, language: language(request, preferring: nil))
        }
        guard let form = PageForm.decode(String(buffer: body)) else { return message(.notALink, language: language(request, preferring: nil)) }
        let language = language(request, preferring: form.lang)
        guard let modeName = form.mode, let mode = ActionMode(rawValue: modeName), mode != .signIn,
            let code = form.oobCode, !code.isEmpty, code.utf8.count <= LinkParser.maximumCodeLength
        else {
            return message(.notALink, language: language)
        }
        // A browser says where a form was posted from; only this site's own pages may post.
        if let site = request.headers[.secFetchSite], site != "same-origin" { return message(.formExpired, language: language) }
        guard formToken.isValid(form.form ?? "", mode: modeName, code: code, now: clock.nowSeconds) else {
            return message(.formExpired, language: language)
        }
        var link = ActionLink(mode: mode, oobCode: code)
        link.apiKey = form.apiKey.flatMap { $0.isEmpty ? nil : $0 }
        link.tenantID = form.tenantId.flatMap { $0.isEmpty ? nil : $0 }
        link.continueURL = form.continueUrl.flatMap { $0.isEmpty ? nil : $0 }
        link.languageCode = language
        let backendContext = BackendCallContext(apiKey: link.apiKey, tenantID: link.tenantID)
        var applied: CodeInfo?
        do {
            if mode == .resetPassword {
                let password = form.newPassword ?? ""
                if let refusal = FormRefusal(newPassword: password, confirmation: form.confirmPassword ?? "") {
                    return refusalRedirect(link, refusal)
                }
                _ = try await backend.resetPassword(code: code, newPassword: password, context: backendContext)
            } else {
                applied = try await backend.applyCode(code, expecting: mode.requestType, context: backendContext)
            }
        } catch .rejected(let refusal) where refusal.code == .weakPassword && mode == .resetPassword {
            return refusalRedirect(link, .weak)
        } catch {
            return failure(error, language: language, context: context, link: link)
        }
        linkEvents.metrics.codeSpent(mode: mode)
        // Post/Redirect/Get: a reload or Back shows the result again instead of posting a spent code.
        let continueURL = link.continueURL.flatMap(router.policy.allowed)
        // After an address was restored the result page names it (and offers a password change for it).
        let restored = mode == .recoverEmail ? applied?.email : nil
        let location = resultLocation(mode: mode, language: language, continueURL: continueURL, email: restored)
        var response = ImmediateResponse.redirect(.seeOther, to: location).response
        response.setCookie(
            Cookie(
                name: FormToken.doneCookieName, value: formToken.doneCookie(code: code, location: location, issuedAt: clock.nowSeconds),
                maxAge: Int(FormToken.lifetimeSeconds), path: "/", secure: pages.publicBaseURL.hasPrefix("https:"),
                httpOnly: true, sameSite: .lax))
        return response
    }

    /// The result page this browser reached by spending `code`, from its cookie (Back or reload after a success).
    func previousResult(_ request: Request, code: String) -> String? {
        request.cookies[FormToken.doneCookieName].flatMap { formToken.doneLocation(cookie: $0.value, code: code, now: clock.nowSeconds) }
    }
}
