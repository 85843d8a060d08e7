import HTTPTypes
import Hummingbird

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

/// The POST of a page's own form: the only place a code is spent.
extension ActionPagesController {
    func submit(_ request: Request, context: Context) async -> Response {
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: PageForm.maximumBytes)
        } catch {
            return message(.bodyTooLarge, language: "en")
        }
        guard let form = PageForm.decode(String(buffer: body)) else { return message(.notALink, language: "en") }
        let language = Languages.language(for: form.lang)
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
        let strings = renderer.strings(language)
        var applied: CodeInfo?
        do {
            if mode == .resetPassword {
                let password = form.newPassword ?? ""
                if password.isEmpty {
                    return await modePage(link, language: language, context: context, error: strings[.passwordMissing], status: .badRequest)
                }
                if password != form.confirmPassword {
                    return await modePage(link, language: language, context: context, error: strings[.passwordsDiffer], status: .badRequest)
                }
                _ = try await backend.resetPassword(code: code, newPassword: password, context: backendContext)
            } else {
                applied = try await backend.applyCode(code, expecting: mode.requestType, context: backendContext)
            }
        } catch .rejected(let refusal) where refusal.code == .weakPassword && mode == .resetPassword {
            return await modePage(link, language: language, context: context, error: strings[.weakPassword], status: .badRequest)
        } catch {
            return failure(error, language: language, context: context, link: link)
        }
        linkEvents.metrics.codeSpent(mode: mode)
        // Post/Redirect/Get: a reload or Back shows the result again instead of posting a spent code.
        let continueURL = link.continueURL.flatMap(router.policy.allowed)
        // After an address was restored the result page offers a password change for it (when mail can be sent).
        let restored = mode == .recoverEmail && requestPasswordReset != nil ? applied?.email : nil
        return ImmediateResponse.redirect(.seeOther, to: resultLocation(mode: mode, language: language, continueURL: continueURL, email: restored)).response
    }
}
