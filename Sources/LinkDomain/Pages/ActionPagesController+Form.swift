import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// The POST of a page's own form: the only place a code is spent.
extension ActionPagesController {
    func submit(_ request: Request) async -> Response {
        let fields: QueryString
        do {
            let body = try await request.body.collect(upTo: 16 * 1024)
            fields = QueryString(Substring(String(buffer: body).replacingOccurrences(of: "+", with: "%20")))
        } catch {
            return message(.contentTooLarge, language: "en", title: "error_generic_title", body: ["error_generic_body"])
        }
        let language = PageRenderer.language(for: fields["lang"])
        guard let modeName = fields["mode"], let mode = ActionMode(rawValue: modeName), mode != .signIn,
            let code = fields["oobCode"], !code.isEmpty, code.utf8.count <= LinkParser.maximumCodeLength
        else {
            return message(.badRequest, language: language, title: "error_not_link_title", body: ["error_not_link_body"])
        }
        guard formToken.isValid(fields["form"] ?? "", mode: modeName, code: code, nonce: cookieValue(request, FormToken.cookieName), now: now())
        else {
            return message(.forbidden, language: language, title: "error_form_title", body: ["error_form_body"])
        }
        var link = ActionLink(mode: mode, oobCode: code)
        link.apiKey = fields["apiKey"].flatMap { $0.isEmpty ? nil : $0 }
        link.tenantID = fields["tenantId"].flatMap { $0.isEmpty ? nil : $0 }
        link.continueURL = fields["continueUrl"].flatMap { $0.isEmpty ? nil : $0 }
        link.languageCode = language
        let context = BackendCallContext(apiKey: link.apiKey, tenantID: link.tenantID)
        let prefix = Self.stringPrefix(for: mode)
        do {
            if mode == .resetPassword {
                let password = fields["newPassword"] ?? ""
                if password.isEmpty { return await modePage(link, language: language, error: renderer.table(language)["password_missing"], status: .badRequest) }
                if password != fields["confirmPassword"] {
                    return await modePage(link, language: language, error: renderer.table(language)["passwords_differ"], status: .badRequest)
                }
                _ = try await backend.resetPassword(code: code, newPassword: password, context: context)
            } else {
                _ = try await backend.applyCode(code, expecting: mode.requestType.rawValue, context: context)
            }
        } catch .rejected(let refusal) where refusal.code == .weakPassword && mode == .resetPassword {
            return await modePage(link, language: language, error: renderer.table(language)["weak_password"], status: .badRequest)
        } catch {
            return failure(error, language: language)
        }
        metrics.codeSpent(mode: mode.rawValue)
        let donePrefix = "\(prefix)_done"
        let continueURL = link.continueURL.flatMap(policy.allowed)
        return message(.ok, language: language, title: "\(donePrefix)_title", body: ["\(donePrefix)_body"],
                       action: continueURL.map { ($0, "continue_button") })
    }
}
