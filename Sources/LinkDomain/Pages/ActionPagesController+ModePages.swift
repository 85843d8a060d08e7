import HTTPTypes
import Hummingbird

/// The GET page of an email action: the form for the link's mode, after the backend's check-only call.
extension ActionPagesController {
    func modePage(_ link: ActionLink, language: String, context: Context, error: String? = nil, status: HTTPResponse.Status = .ok) async -> Response {
        let info: CodeInfo
        do {
            info = try await backend.checkCode(link.oobCode, context: BackendCallContext(apiKey: link.apiKey, tenantID: link.tenantID))
        } catch {
            return failure(error, language: language, context: context)
        }
        guard info.requestType == link.mode.requestType.rawValue else { return message(.invalidCode, language: language) }
        let nonce = FormToken.newNonce()
        let token = formToken.token(mode: link.mode.rawValue, code: link.oobCode, nonce: nonce, issuedAt: clock.nowSeconds)
        let strings = renderer.strings(language)
        var response = html(status, pages.modeForm(link, email: info.email, newEmail: info.newEmail, formToken: token, error: error, strings: strings),
                            strings: strings)
        response.headers[.setCookie] = cookie(nonce)
        return response
    }
}
