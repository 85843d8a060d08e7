import LinkDomainCore
import LinkDomainStorage

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

    /// Its own strings in `Public/mail/locales/*.json`.
    var texts: MailTexts {
        switch self {
        case .signIn: MailTexts(subject: .signInSubject, heading: .signInHeading, body: .signInBody, button: .signInButton)
        case .resetPassword:
            MailTexts(subject: .resetPasswordSubject, heading: .resetPasswordHeading, body: .resetPasswordBody, button: .resetPasswordButton)
        case .verifyEmail: MailTexts(subject: .verifyEmailSubject, heading: .verifyEmailHeading, body: .verifyEmailBody, button: .verifyEmailButton)
        case .changeEmail: MailTexts(subject: .changeEmailSubject, heading: .changeEmailHeading, body: .changeEmailBody, button: .changeEmailButton)
        case .recoverEmail:
            MailTexts(subject: .recoverEmailSubject, heading: .recoverEmailHeading, body: .recoverEmailBody, button: .recoverEmailButton)
        case .revertSecondFactor:
            MailTexts(
                subject: .revertSecondFactorSubject, heading: .revertSecondFactorHeading, body: .revertSecondFactorBody,
                button: .revertSecondFactorButton)
        // The test mail carries no link, so no button.
        case .test: MailTexts(subject: .testSubject, heading: .testHeading, body: .testBody, button: nil)
        }
    }
}

/// The strings of one kind of mail.
struct MailTexts {
    var subject: MailText
    var heading: MailText
    var body: MailText
    var button: MailText?
}
