import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// The GET pages of an email action: the form for the link's mode (after the backend's
/// check-only call), and the landing page that offers the app.
extension ActionPagesController {
    func modePage(_ link: ActionLink, language: String, error: String? = nil, status: HTTPResponse.Status = .ok) async -> Response {
        let info: CodeInfo
        do {
            info = try await backend.checkCode(link.oobCode, context: BackendCallContext(apiKey: link.apiKey, tenantID: link.tenantID))
        } catch {
            return failure(error, language: language)
        }
        guard info.requestType == link.mode.requestType.rawValue else {
            return message(.badRequest, language: language, title: "error_invalid_title", body: ["error_invalid_body"])
        }
        let nonce = FormToken.newNonce()
        let token = formToken.token(mode: link.mode.rawValue, code: link.oobCode, nonce: nonce, issuedAt: now())
        var fields: [[String: String]] = [
            ["name": "mode", "value": link.mode.rawValue], ["name": "oobCode", "value": link.oobCode], ["name": "form", "value": token],
            ["name": "lang", "value": language],
        ]
        if let apiKey = link.apiKey { fields.append(["name": "apiKey", "value": apiKey]) }
        if let tenantID = link.tenantID { fields.append(["name": "tenantId", "value": tenantID]) }
        if let continueURL = link.continueURL { fields.append(["name": "continueUrl", "value": continueURL]) }
        let strings = renderer.table(language)
        let html: String
        if link.mode == .resetPassword {
            var values: [String: Any] = ["title": strings["reset_title"] ?? "", "fields": fields]
            values["email"] = info.email
            values["error"] = error
            html = renderer.render("reset-password", language: language, values: values)
        } else {
            let prefix = Self.stringPrefix(for: link.mode)
            var values: [String: Any] = [
                "title": strings["\(prefix)_title"] ?? "", "body": strings["\(prefix)_body"] ?? "", "button": strings["\(prefix)_button"] ?? "",
                "fields": fields,
            ]
            values["email"] = info.email
            if link.mode == .verifyAndChangeEmail { values["newEmail"] = info.newEmail }
            html = renderer.render("confirm-action", language: language, values: values)
        }
        var response = htmlResponse(status, html)
        response.headers[.setCookie] = cookie(nonce)
        return response
    }

    func landing(_ target: AppTarget, link: ActionLink, request: Request, visitor: Visitor, language: String) -> Response {
        let strings = renderer.table(language)
        let pathAndQuery = ownPathAndQuery(request)
        var values: [String: Any] = ["title": strings["landing_title"] ?? ""]
        switch target.kind {
        case .apple:
            // A universal link fires only for a tap that leads to another domain: the pivot host.
            if let pivot = configuration.pivotBaseURL { values["openURL"] = pivot + pathAndQuery }
            let fallback = (visitor.platform == .iPadOS ? link.hints.iPadFallbackURL : nil) ?? link.hints.iOSFallbackURL
            values["storeURL"] = fallback.flatMap(policy.allowed) ?? target.storeURL
            values["storeLabel"] = strings[target.storeURL == nil ? "get_app_fallback" : "get_app_store"]
        case .android(let app):
            let store = link.hints.androidFallbackURL.flatMap(policy.allowed) ?? target.storeURL ?? ""
            values["openURL"] = LinkRouter.androidIntent(host: configuration.publicHost, pathAndQuery: pathAndQuery,
                                                         package: app.packageName, fallback: store)
            values["storeURL"] = store
            values["storeLabel"] = strings["get_app_play"]
        }
        if link.mode != .signIn || link.continueURL.flatMap(policy.allowed) != nil {
            values["webURL"] = pathAndQuery + (request.uri.query == nil ? "?" : "&") + "web=1"
        }
        return htmlResponse(.ok, renderer.render("landing", language: language, values: values))
    }
}
