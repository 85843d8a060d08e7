import LinkDomainCore
import LinkDomainStorage

/// A `POST /v1/accounts:sendOobCode` body, read and checked: what to send, to whom, with which
/// ActionCodeSettings. Pure: no I/O, so every refusal is tested without a server.
package struct EmailActionRequest: Sendable, Equatable {
    enum Subject: Sendable, Equatable {
        /// EMAIL_SIGNIN and PASSWORD_RESET name the address.
        case email(String)
        /// VERIFY_EMAIL and VERIFY_AND_CHANGE_EMAIL prove the account with its ID token.
        case idToken(String)
    }

    var requestType: OobRequestType
    var subject: Subject
    var newEmail: String?
    /// The ActionCodeSettings passed on to the backend, without `linkDomain` and
    /// `dynamicLinkDomain` (the link is put on this service's own host whatever they say) and
    /// without `androidMinimumVersionCode`, which Google's API does not take.
    var settings: ActionCodeSettingsFields
    var tenantID: String?
    var languageCode: String?

    /// Whether the mail's link is the app form (`/__/auth/links?link=`), as Firebase's mails are
    /// when the settings name an app or let one handle the code.
    var opensInApp: Bool { settings.opensInApp }

    /// Reads `body`; `locale` is `X-Firebase-Locale` (a body's or query's `lang` otherwise).
    package init(_ body: SendOobCodeRequest, locale: String?) throws(IdentityToolkitError) {
        guard let typeName = body.requestType else { throw IdentityToolkitError.missingRequestType }
        guard let type = OobRequestType(rawValue: typeName) else { throw IdentityToolkitError(.invalidRequestType, detail: typeName) }
        requestType = type
        switch type {
        case .emailSignIn, .passwordReset:
            guard let email = body.email else { throw IdentityToolkitError.missingEmail }
            // An account's address rules too: the address is written into the mail (no link-shaped or invisible text).
            guard let address = MailAddress(email.trimmingWhitespace), (try? AccountAttributes.email(address.value)) != nil else {
                throw IdentityToolkitError(.invalidEmail)
            }
            subject = .email(address.value.lowercased())
            if type == .emailSignIn, body.settings.continueURL == nil { throw IdentityToolkitError.missingContinueURI }
        case .verifyEmail, .verifyAndChangeEmail:
            guard let token = body.idToken else { throw IdentityToolkitError.missingIDToken }
            subject = .idToken(token)
            if type == .verifyAndChangeEmail {
                guard let raw = body.newEmail else { throw IdentityToolkitError(.missingNewEmail) }
                guard let address = MailAddress(raw.trimmingWhitespace), (try? AccountAttributes.email(address.value)) != nil else {
                    throw IdentityToolkitError(.invalidNewEmail)
                }
                newEmail = address.value.lowercased()
            }
        case .recoverEmail, .revertSecondFactorAddition:
            // Codes a backend makes itself after a change, never on request.
            throw IdentityToolkitError(.invalidRequestType, detail: typeName)
        }
        settings = body.settings
        settings.linkDomain = nil
        settings.dynamicLinkDomain = nil
        settings.androidMinimumVersionCode = nil
        tenantID = body.tenantID
        languageCode = locale ?? body.languageCode
    }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
