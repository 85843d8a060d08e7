import HTTPTypes

/// Every message page the service shows, with the status it is served with.
enum PageMessage: Equatable {
    case notALink
    case unavailable
    case timedOut
    case badGateway
    case redirectRefused
    case signInInstructions
    /// What scanners, previewers and HEAD requests see: nothing revealed, nothing spent.
    case neutral
    case expiredCode
    case invalidCode
    case disabledAccount
    case unknownAccount
    case refused
    case formExpired
    case bodyTooLarge
    /// The action is done; `continueURL` (already allowed by the policy) is offered as a button.
    case done(ActionMode, continueURL: String?)
    /// A password-reset link was asked for from the page (sent if the address has an account).
    case resetRequested

    var status: HTTPResponse.Status {
        switch self {
        case .notALink, .redirectRefused, .invalidCode, .refused: .badRequest
        case .unavailable: .serviceUnavailable
        case .timedOut: .gatewayTimeout
        case .badGateway: .badGateway
        case .signInInstructions, .neutral, .done, .resetRequested: .ok
        case .expiredCode: .gone
        case .disabledAccount, .formExpired: .forbidden
        case .unknownAccount: .notFound
        case .bodyTooLarge: .contentTooLarge
        }
    }

    /// The string-table keys of the title and the paragraph.
    var keys: (title: String, body: String) {
        switch self {
        case .notALink: ("error_not_link_title", "error_not_link_body")
        case .unavailable: ("error_unavailable_title", "error_unavailable_body")
        case .timedOut: ("error_timeout_title", "error_timeout_body")
        case .badGateway: ("error_bad_gateway_title", "error_bad_gateway_body")
        case .redirectRefused: ("error_redirect_title", "error_redirect_body")
        case .signInInstructions: ("signin_title", "signin_body")
        case .neutral: ("bot_title", "bot_body")
        case .expiredCode: ("error_expired_title", "error_expired_body")
        case .invalidCode: ("error_invalid_title", "error_invalid_body")
        case .disabledAccount: ("error_disabled_title", "error_disabled_body")
        case .unknownAccount: ("error_account_title", "error_account_body")
        case .refused, .bodyTooLarge: ("error_generic_title", "error_generic_body")
        case .formExpired: ("error_form_title", "error_form_body")
        case .resetRequested: ("reset_requested_title", "reset_requested_body")
        case .done(let mode, _): ("\(mode.stringPrefix)_done_title", "\(mode.stringPrefix)_done_body")
        }
    }

    /// The page for a backend's refusal or failure.
    init(_ error: BackendError) {
        switch error {
        case .rejected(let refusal):
            switch refusal.code {
            case .expiredOobCode?: self = .expiredCode
            case .invalidOobCode?: self = .invalidCode
            case .userDisabled?: self = .disabledAccount
            case .emailNotFound?, .userNotFound?: self = .unknownAccount
            default: self = .refused
            }
        case .unreachable: self = .unavailable
        case .timedOut: self = .timedOut
        case .invalidResponse: self = .badGateway
        }
    }
}

extension ActionMode {
    /// The prefix of this mode's strings in the string tables (`reset_title`, `verify_done_body`).
    var stringPrefix: String {
        switch self {
        case .signIn: "signin"
        case .resetPassword: "reset"
        case .verifyEmail: "verify"
        case .recoverEmail: "recover"
        case .verifyAndChangeEmail: "change"
        case .revertSecondFactorAddition: "revert"
        }
    }
}
