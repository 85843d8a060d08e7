/// What an out-of-band code is for, as Identity Toolkit names it (`requestType`).
public enum OobRequestType: String, Codable, Sendable, CaseIterable {
    case passwordReset = "PASSWORD_RESET"
    case emailSignIn = "EMAIL_SIGNIN"
    case verifyEmail = "VERIFY_EMAIL"
    case verifyAndChangeEmail = "VERIFY_AND_CHANGE_EMAIL"
    case recoverEmail = "RECOVER_EMAIL"
    case revertSecondFactorAddition = "REVERT_SECOND_FACTOR_ADDITION"

    /// The `mode` an action link carries for this kind of code.
    public var mode: ActionMode {
        switch self {
        case .passwordReset: .resetPassword
        case .emailSignIn: .signIn
        case .verifyEmail: .verifyEmail
        case .verifyAndChangeEmail: .verifyAndChangeEmail
        case .recoverEmail: .recoverEmail
        case .revertSecondFactorAddition: .revertSecondFactorAddition
        }
    }
}

extension ActionMode {
    /// The kind of code a link of this mode carries: the inverse of ``OobRequestType/mode``.
    public var requestType: OobRequestType {
        switch self {
        case .resetPassword: .passwordReset
        case .signIn: .emailSignIn
        case .verifyEmail: .verifyEmail
        case .verifyAndChangeEmail: .verifyAndChangeEmail
        case .recoverEmail: .recoverEmail
        case .revertSecondFactorAddition: .revertSecondFactorAddition
        }
    }
}
