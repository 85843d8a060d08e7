/// The well-known files of a credentials-aware domain and the web app's `init.json`, made once at
/// start from the configuration (docs/wire-formats.md, "Passkeys and password managers"). Each is
/// nil when its keys are not configured: its path then answers 404.
public struct CredentialFiles: Sendable, Equatable {
    /// `/.well-known/webauthn`: `{"origins": [...]}`, the origins that may use passkeys made for this domain.
    public let webauthn: StaticJSONDocument?
    /// `/.well-known/passkey-endpoints`: `{"enroll": ..., "manage": ...}`.
    public let passkeyEndpoints: StaticJSONDocument?
    /// Where `/.well-known/change-password` redirects.
    public let changePasswordURL: String?
    /// `/__/firebase/init.json`: the web app's Firebase config with this host as `authDomain`.
    public let firebaseInit: StaticJSONDocument

    private struct RelatedOrigins: Encodable {
        var origins: [String]
    }

    private struct PasskeyEndpoints: Encodable {
        var enroll: String?
        var manage: String?
    }

    /// The keys Firebase Hosting's `init.json` holds, those not configured left out.
    private struct FirebaseInit: Encodable {
        var apiKey: String
        var appId: String?
        var authDomain: String
        var measurementId: String?
        var messagingSenderId: String?
        var projectId: String
        var storageBucket: String?
    }

    public init(configuration: LinkDomainConfiguration) {
        let domain = configuration.authDomain
        webauthn = domain.relatedOrigins.isEmpty ? nil : StaticJSONDocument(bytes: AssociationFiles.encode(RelatedOrigins(origins: domain.relatedOrigins)))
        passkeyEndpoints =
            domain.passkeyEnrollURL == nil && domain.passkeyManageURL == nil
            ? nil
            : StaticJSONDocument(
                bytes: AssociationFiles.encode(PasskeyEndpoints(enroll: domain.passkeyEnrollURL, manage: domain.passkeyManageURL)))
        changePasswordURL = domain.changePasswordURL
        let web = domain.webApp
        firebaseInit = StaticJSONDocument(
            bytes: AssociationFiles.encode(
                FirebaseInit(
                    apiKey: configuration.backend.apiKey, appId: web.appID, authDomain: Self.authDomain(publicBaseURL: configuration.publicBaseURL),
                    measurementId: web.measurementID, messagingSenderId: web.messagingSenderID, projectId: configuration.backend.projectID,
                    storageBucket: web.storageBucket)))
    }

    /// This host as an app's `authDomain` names it: the host, with the port unless it is the scheme's default.
    package static func authDomain(publicBaseURL: String) -> String {
        guard let address = WebAddress(publicBaseURL) else { return publicBaseURL }
        let defaultPort = address.scheme == "https" ? 443 : 80
        return address.host + (address.port.map { $0 == defaultPort ? "" : ":\($0)" } ?? "")
    }
}
