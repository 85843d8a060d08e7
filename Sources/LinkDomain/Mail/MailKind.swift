/// The mails LinkDomain writes: one per email action, and the operator's test mail.
public enum MailKind: String, Sendable, CaseIterable {
    case signIn = "sign-in"
    case resetPassword = "reset-password"
    case verifyEmail = "verify-email"
    /// To the new address of an email change: confirm it.
    case changeEmail = "change-email"
    /// To the old address after a change: the notice, with the link that undoes it.
    case recoverEmail = "recover-email"
    case revertSecondFactor = "revert-second-factor"
    /// `linkdomain mail test ADDRESS`.
    case test

    /// The mail for a code of `type`.
    init(_ type: OobRequestType) {
        switch type {
        case .emailSignIn: self = .signIn
        case .passwordReset: self = .resetPassword
        case .verifyEmail: self = .verifyEmail
        case .verifyAndChangeEmail: self = .changeEmail
        case .recoverEmail: self = .recoverEmail
        case .revertSecondFactorAddition: self = .revertSecondFactor
        }
    }

    /// The prefix of its strings in `Public/mail/locales/*.json`: `sign_in_subject`, `sign_in_body` ...
    var stringPrefix: String { rawValue.replacingOccurrences(of: "-", with: "_") }
}
