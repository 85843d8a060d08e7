import Logging

/// The ActionCodeSettings fields of `accounts:sendOobCode`, checked as Identity Toolkit checks them.
struct ActionCodeSettings: Sendable {
    var continueURL: String?
    var canHandleCodeInApp = false
    var iOSBundleID: String?
    var androidPackageName: String?

    /// Mobile-app settings make the mail link the `/__/auth/links` form that universal links and App Links open.
    var opensInApp: Bool { canHandleCodeInApp || iOSBundleID != nil || androidPackageName != nil }

    init() {}

    init(_ body: RequestBody, backend: EmbeddedBackendSettings, logger: Logger) throws {
        if let continueURL = body.string("continueUrl") {
            guard let address = WebAddress(continueURL) else {
                logger.notice("continue URL refused: not an http(s) URL with a host")
                throw IdentityToolkitError.invalidContinueURI
            }
            guard backend.authorizedDomains.contains(address.host) else {
                // The host says what to add to authorizedDomains; the rest of the URL may carry a user's data.
                logger.notice("continue URL refused: host not in authorizedDomains", metadata: ["host": .string(address.host)])
                throw IdentityToolkitError.unauthorizedDomain
            }
            self.continueURL = continueURL
        }
        canHandleCodeInApp = body.bool("canHandleCodeInApp") ?? false
        iOSBundleID = body.string("iOSBundleId")
        androidPackageName = body.string("androidPackageName")
        if body.has("iOSAppStoreId") && iOSBundleID == nil { throw IdentityToolkitError.missingIOSBundleID }
        let androidOnly = ["androidInstallApp", "androidMinimumVersion", "androidMinimumVersionCode"]
        if androidOnly.contains(where: body.has) && androidPackageName == nil { throw IdentityToolkitError.missingAndroidPackageName }
        if let linkDomain = body.string("linkDomain"), linkDomain.lowercased() != backend.linkHost {
            throw IdentityToolkitError.invalidHostingLinkDomain
        }
    }
}
