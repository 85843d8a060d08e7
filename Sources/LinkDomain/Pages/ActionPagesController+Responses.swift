import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// What every page shares: backend refusals as pages, message pages, HTML responses, the form
/// cookie and the visitor's language.
extension ActionPagesController {
    func failure(_ error: BackendError, language: String) -> Response {
        switch error {
        case .rejected(let refusal):
            switch refusal.code {
            case .expiredOobCode?: return message(.gone, language: language, title: "error_expired_title", body: ["error_expired_body"])
            case .invalidOobCode?: return message(.badRequest, language: language, title: "error_invalid_title", body: ["error_invalid_body"])
            case .userDisabled?: return message(.forbidden, language: language, title: "error_disabled_title", body: ["error_disabled_body"])
            case .emailNotFound?, .userNotFound?:
                return message(.notFound, language: language, title: "error_account_title", body: ["error_account_body"])
            default:
                logger.warning("backend refused an action", metadata: ["code": .string(refusal.spelling)])
                return message(.badRequest, language: language, title: "error_generic_title", body: ["error_generic_body"])
            }
        case .unreachable:
            return message(.serviceUnavailable, language: language, title: "error_unavailable_title", body: ["error_unavailable_body"])
        case .timedOut:
            return message(.gatewayTimeout, language: language, title: "error_timeout_title", body: ["error_timeout_body"])
        case .invalidResponse:
            return message(.badGateway, language: language, title: "error_bad_gateway_title", body: ["error_bad_gateway_body"])
        }
    }

    func message(_ status: HTTPResponse.Status, language: String, title: String, body: [String],
                         action: (url: String, label: String)? = nil) -> Response {
        let strings = renderer.table(language)
        var values: [String: Any] = ["title": strings[title] ?? title, "paragraphs": body.map { strings[$0] ?? $0 }]
        if let action {
            values["actionURL"] = action.url
            values["actionLabel"] = strings[action.label] ?? action.label
        }
        return htmlResponse(status, renderer.render("message", language: language, values: values))
    }

    func htmlResponse(_ status: HTTPResponse.Status, _ html: String) -> Response {
        Response(status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
                 body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    func cookie(_ nonce: String) -> String {
        let secure = configuration.publicBaseURL.hasPrefix("https://") ? "; Secure" : ""
        return "\(FormToken.cookieName)=\(nonce); Path=/__/auth; Max-Age=\(FormToken.lifetimeSeconds); HttpOnly; SameSite=Strict\(secure)"
    }

    func cookieValue(_ request: Request, _ name: String) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == name { return String(parts[1]) }
            }
        }
        return nil
    }

    func acceptLanguage(_ request: Request) -> String? {
        // `Accept-Language: ;` has no tag at all: every step may come up empty.
        request.headers[.acceptLanguage]?.split(separator: ",").first?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    static func stringPrefix(for mode: ActionMode) -> String {
        switch mode {
        case .signIn: "signin"
        case .resetPassword: "reset"
        case .verifyEmail: "verify"
        case .recoverEmail: "recover"
        case .verifyAndChangeEmail: "change"
        case .revertSecondFactorAddition: "revert"
        }
    }
}
