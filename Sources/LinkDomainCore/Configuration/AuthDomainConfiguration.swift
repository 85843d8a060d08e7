extension LinkDomainConfiguration {
    /// What makes this host the app's whole auth domain besides the email links
    /// (docs/design/auth-helper.md).
    public struct AuthDomain: Sendable, Equatable {
        /// `authHandler.origin`: where the sign-in helper (`/__/auth/handler`, `/__/auth/iframe`,
        /// their scripts, `/__/firebase/*`) is answered from; nil: not served.
        public var helperOrigin: String?
        /// `webApp.*`: the web app's values for `/__/firebase/init.json`.
        public var webApp = WebApp()
        /// `passkeys.relatedOrigins`: `/.well-known/webauthn`'s origins.
        public var relatedOrigins: [String] = []
        /// `passkeys.enrollURL` and `passkeys.manageURL`: `/.well-known/passkey-endpoints`.
        public var passkeyEnrollURL: String?
        public var passkeyManageURL: String?
        /// `changePasswordURL`: where `/.well-known/change-password` redirects.
        public var changePasswordURL: String?
        /// `admin.listen`: the loopback listener speaking the emulator's admin contract.
        public var adminListen: AdminListenAddress?
        public init() {}

        /// Firebase Hosting's default domain of a project: where its helper files live.
        package static func firebaseAppOrigin(projectID: String) -> String { "https://\(projectID).firebaseapp.com" }
    }

    /// A Firebase web app's config values besides the API key and project (all optional).
    public struct WebApp: Sendable, Equatable {
        public var appID: String?
        public var messagingSenderID: String?
        public var storageBucket: String?
        public var measurementID: String?
        public init() {}
    }
}

/// Reading the auth-domain keys; the default helper origin needs the backend, read before.
extension ValidatingReader {
    package mutating func readAuthDomain(backend: LinkDomainConfiguration.Backend) -> LinkDomainConfiguration.AuthDomain {
        var domain = LinkDomainConfiguration.AuthDomain()
        // An empty value turns the helper off, the Identity Toolkit backend's default included.
        let turnedOff = string(ConfigurationKeys.authHandlerOrigin) == ""
        let explicitOrigin = turnedOff ? nil : validated(ConfigurationKeys.authHandlerOrigin)
        if turnedOff {
            domain.helperOrigin = nil
        } else if case .identityToolkit = backend.kind {
            domain.helperOrigin = explicitOrigin ?? LinkDomainConfiguration.AuthDomain.firebaseAppOrigin(projectID: backend.projectID)
        } else {
            domain.helperOrigin = explicitOrigin
        }
        domain.webApp.appID = validated(ConfigurationKeys.webAppAppID)
        domain.webApp.messagingSenderID = validated(ConfigurationKeys.webAppMessagingSenderID)
        domain.webApp.storageBucket = validated(ConfigurationKeys.webAppStorageBucket)
        domain.webApp.measurementID = validated(ConfigurationKeys.webAppMeasurementID)
        domain.relatedOrigins = list(ConfigurationKeys.passkeysRelatedOrigins) ?? []
        domain.passkeyEnrollURL = validated(ConfigurationKeys.passkeysEnrollURL)
        domain.passkeyManageURL = validated(ConfigurationKeys.passkeysManageURL)
        domain.changePasswordURL = validated(ConfigurationKeys.changePasswordURL)
        domain.adminListen = validated(ConfigurationKeys.adminListen).flatMap(AdminListenAddress.init)
        if domain.adminListen != nil, backend.kind != .embedded {
            report(
                ConfigurationKeys.adminListen.path(), problem: "is set, but backend.kind is \(backend.kind.name)",
                expected: "no admin listener: it serves the embedded backend's API (backend.kind embedded)")
        }
        return domain
    }
}
