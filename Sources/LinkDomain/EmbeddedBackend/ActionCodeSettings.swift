import LinkDomainCore
import LinkDomainStorage
import Logging

/// The ActionCodeSettings fields of `accounts:sendOobCode`, checked as Identity Toolkit checks them.
struct ActionCodeSettings: Sendable {
    /// The settings as sent, once every check below passed.
    private var fields = ActionCodeSettingsFields()

    var continueURL: String? { fields.continueURL }
    /// Mobile-app settings make the mail link the `/__/auth/links` form that universal links and App Links open.
    var opensInApp: Bool { fields.opensInApp }
    /// The settings name an app (not only `canHandleCodeInApp`, which a web app's sign-in sets too).
    var namesApp: Bool { fields.iOSBundleID != nil || fields.androidPackageName != nil }

    init() {}

    init(_ fields: ActionCodeSettingsFields, backend: EmbeddedBackendSettings, logger: Logger) throws {
        if let continueURL = fields.continueURL {
            guard let address = WebAddress(continueURL) else {
                logger.notice("continue URL refused: not an http(s) URL with a host")
                throw IdentityToolkitError.invalidContinueURI
            }
            guard backend.authorizedDomains.contains(address.host) else {
                // The host says what to add to authorizedDomains; the rest of the URL may carry a user's data.
                logger.notice("continue URL refused: host not in authorizedDomains", metadata: ["host": .string(address.host)])
                throw IdentityToolkitError.unauthorizedDomain
            }
        }
        if fields.iOSAppStoreID != nil && fields.iOSBundleID == nil { throw IdentityToolkitError.missingIOSBundleID }
        if fields.namesAndroidOptions && fields.androidPackageName == nil { throw IdentityToolkitError.missingAndroidPackageName }
        if let linkDomain = fields.linkDomain, linkDomain.lowercased() != backend.linkHost {
            throw IdentityToolkitError.invalidHostingLinkDomain
        }
        self.fields = fields
    }
}
