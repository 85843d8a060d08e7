import HTTPTypes
import Hummingbird
import LinkDomainCore
import LinkDomainStorage

/// The branded, translated pages of errors on the pages' paths (404, 413, 429, 5xx): the page a
/// person meets after a cut link, a flood from their network, or a fault here, with a way on.
struct ErrorPages: Sendable {
    let pages: PageBuilder
    let renderer: PageRenderer

    /// The page for `status`, in the visitor's language, with `Retry-After` when one was given.
    func response(_ status: HTTPResponse.Status, acceptLanguage: String?, retryAfter: String?) -> Response {
        let language = pages.router.language(preferring: nil, acceptLanguage: acceptLanguage)
        let strings = renderer.strings(language)
        var response = renderer.response(status, pages.message(Self.message(for: status), strings: strings), strings: strings).response
        if let retryAfter { response.headers[.retryAfter] = retryAfter }
        return response
    }

    /// The message that explains `status`; its own status is the one served, whatever the message's usual one.
    static func message(for status: HTTPResponse.Status) -> PageMessage {
        switch status.code {
        case 404: .notFound
        case 413: .bodyTooLarge
        case 429: .tooManyRequests
        case 502: .badGateway
        case 503: .unavailable
        case 504: .timedOut
        case 500...: .internalError
        default: .refused
        }
    }
}
