import Foundation
import LinkDomainCore
import LinkDomainStorage
import Synchronization

/// How the embedded backend behaves, from the configuration.
public struct EmbeddedBackendSettings: Sendable {
    public var projectID: String
    /// The key links carry; in embedded mode any non-empty key is accepted, as the emulator does.
    public var apiKey: String
    public var publicBaseURL: String
    /// The link domain's host, which `linkDomain` in ActionCodeSettings must name.
    public var linkHost: String
    public var authorizedDomains: [String]
    /// When on (the default, as for new Firebase projects), answers never reveal whether an email is registered.
    public var emailEnumerationProtection: Bool
    /// Whose signature a custom token must carry in a deployment.
    public var serviceAccount: ServiceAccount?
    /// How long reset, verification and sign-in codes stay valid.
    public var codeLifetimeSeconds: Int
    /// Development keeps the emulator's contract; a deployment takes configured keys only.
    public var mode: ServingMode = .development
    /// The API keys a deployment accepts on client calls.
    public var clientAPIKeys: [String] = []
    /// The bearer tokens a deployment accepts on admin calls.
    public var adminKeys: [String] = []
    /// The `lang` of links and the language of mails asked for in none, by an account that never
    /// named one (`pages.defaultLanguage`; Firebase's project template language).
    public var defaultLanguage = "en"
    /// scrypt's cost for new password hashes (existing hashes keep their own).
    package var passwordHashRounds = PasswordHasher.defaultRounds

    public init(
        projectID: String, apiKey: String, publicBaseURL: String, linkHost: String, authorizedDomains: [String],
        emailEnumerationProtection: Bool = true, codeLifetimeSeconds: Int = 3600
    ) {
        self.projectID = projectID
        self.apiKey = apiKey
        self.publicBaseURL = publicBaseURL
        self.linkHost = linkHost
        self.authorizedDomains = authorizedDomains
        self.emailEnumerationProtection = emailEnumerationProtection
        self.codeLifetimeSeconds = codeLifetimeSeconds
    }
}
