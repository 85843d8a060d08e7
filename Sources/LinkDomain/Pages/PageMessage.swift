import HTTPTypes
import LinkDomainCore
import LinkDomainStorage

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
    /// A client over the pages' rate limit (429, with `Retry-After`).
    case tooManyRequests
    /// "Send me a new link" was asked for (sent if the address has an account).
    case newLinkSent
    /// No page at this address (a mistyped or cut link, a deleted short link).
    case notFound
    /// This service failed; nothing was changed.
    case internalError
    /// A hand-off URL opened in a browser: the app picks it up, nothing here spends it.
    case handoff

    var status: HTTPResponse.Status {
        switch self {
        case .notALink, .redirectRefused, .invalidCode, .refused: .badRequest
        case .unavailable: .serviceUnavailable
        case .tooManyRequests: .tooManyRequests
        case .timedOut: .gatewayTimeout
        case .badGateway: .badGateway
        case .signInInstructions, .neutral, .done, .resetRequested, .newLinkSent, .handoff: .ok
        case .notFound: .notFound
        case .internalError: .internalServerError
        case .expiredCode: .gone
        case .disabledAccount, .formExpired: .forbidden
        case .unknownAccount: .notFound
        case .bodyTooLarge: .contentTooLarge
        }
    }

    /// The end of a link's way (done, used, refused): with nowhere to lead, the page says it may be closed.
    var isEnding: Bool {
        switch self {
        case .done, .expiredCode, .invalidCode, .redirectRefused, .resetRequested, .newLinkSent, .disabledAccount, .unknownAccount, .refused: true
        default: false
        }
    }

    /// The backend failed (unreachable, wrong answer, too slow): the same link may work on a retry.
    var isBackendFailure: Bool {
        switch self {
        case .unavailable, .badGateway, .timedOut, .internalError: true
        default: false
        }
    }

    /// The strings of the title and the paragraph.
    var texts: (title: PageText, body: PageText) {
        switch self {
        case .notALink: (.errorNotLinkTitle, .errorNotLinkBody)
        case .unavailable: (.errorUnavailableTitle, .errorUnavailableBody)
        case .timedOut: (.errorTimeoutTitle, .errorTimeoutBody)
        case .badGateway: (.errorBadGatewayTitle, .errorBadGatewayBody)
        case .redirectRefused: (.errorRedirectTitle, .errorRedirectBody)
        case .signInInstructions: (.signinTitle, .signinBody)
        case .neutral: (.botTitle, .botBody)
        case .expiredCode: (.errorExpiredTitle, .errorExpiredBody)
        case .invalidCode: (.errorInvalidTitle, .errorInvalidBody)
        case .disabledAccount: (.errorDisabledTitle, .errorDisabledBody)
        case .unknownAccount: (.errorAccountTitle, .errorAccountBody)
        case .refused: (.errorGenericTitle, .errorGenericBody)
        case .bodyTooLarge: (.tooLargeTitle, .tooLargeBody)
        case .newLinkSent: (.newLinkSentTitle, .newLinkSentBody)
        case .notFound: (.notFoundTitle, .notFoundBody)
        case .internalError: (.errorInternalTitle, .errorInternalBody)
        case .handoff: (.handoffTitle, .handoffBody)
        case .formExpired: (.errorFormTitle, .errorFormBody)
        case .resetRequested: (.resetRequestedTitle, .resetRequestedBody)
        case .tooManyRequests: (.tooManyTitle, .tooManyBody)
        case .done(let mode, _): (mode.texts.doneTitle, mode.texts.doneBody)
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

/// The strings of one action mode's pages.
struct ModeTexts {
    /// "Reset your {app} password": the app's landing page, and above an error about the link.
    var landingTitle: PageText
    /// What the landing page says the link does, and where it finishes.
    var landingBody: PageText
    /// The form that completes the action.
    var formTitle: PageText
    var formBody: PageText
    var formButton: PageText
    /// The page after it is done.
    var doneTitle: PageText
    var doneBody: PageText
}

extension ActionMode {
    var texts: ModeTexts {
        switch self {
        case .signIn:
            // A sign-in finishes in the app or on the continue URL: it has no form of its own and no result page.
            ModeTexts(
                landingTitle: .landingTitleSignin, landingBody: .landingBodySignin, formTitle: .signinTitle, formBody: .signinBody, formButton: .continueButton,
                doneTitle: .signinTitle, doneBody: .signinBody)
        case .resetPassword:
            ModeTexts(
                landingTitle: .landingTitleReset, landingBody: .landingBodyReset, formTitle: .resetTitle, formBody: .passwordHint, formButton: .resetButton,
                doneTitle: .resetDoneTitle, doneBody: .resetDoneBody)
        case .verifyEmail:
            ModeTexts(
                landingTitle: .landingTitleVerify, landingBody: .landingBodyVerify, formTitle: .verifyTitle, formBody: .verifyBody, formButton: .verifyButton,
                doneTitle: .verifyDoneTitle, doneBody: .verifyDoneBody)
        case .recoverEmail:
            ModeTexts(
                landingTitle: .landingTitleRecover, landingBody: .landingBodyRecover, formTitle: .recoverTitle, formBody: .recoverBody,
                formButton: .recoverButton,
                doneTitle: .recoverDoneTitle, doneBody: .recoverDoneBody)
        case .verifyAndChangeEmail:
            ModeTexts(
                landingTitle: .landingTitleChange, landingBody: .landingBodyChange, formTitle: .changeTitle, formBody: .changeBody, formButton: .changeButton,
                doneTitle: .changeDoneTitle, doneBody: .changeDoneBody)
        case .revertSecondFactorAddition:
            ModeTexts(
                landingTitle: .landingTitleRevert, landingBody: .landingBodyRevert, formTitle: .revertTitle, formBody: .revertBody, formButton: .revertButton,
                doneTitle: .revertDoneTitle, doneBody: .revertDoneBody)
        }
    }
}
