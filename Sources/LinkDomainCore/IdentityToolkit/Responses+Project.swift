// The answers about the project and the emulator, field for field as Google spells them. Optional fields that are nil are left out, as
// Google leaves them out.

/// `GET /v1/projects` (and v3 `getProjectConfig`).
package struct ProjectConfigResponse: Codable, Sendable {
    package var projectId: String
    package var authorizedDomains: [String]

    package init(projectId: String, authorizedDomains: [String]) {
        self.projectId = projectId
        self.authorizedDomains = authorizedDomains
    }
}

/// The emulator's project configuration (`/emulator/v1/projects/{projectID}/config`).
package struct EmulatorProjectConfig: Codable, Sendable {
    package struct SignIn: Codable, Sendable {
        package var allowDuplicateEmails: Bool?

        package init(allowDuplicateEmails: Bool? = nil) {
            self.allowDuplicateEmails = allowDuplicateEmails
        }
    }

    package struct EmailPrivacy: Codable, Sendable {
        package var enableImprovedEmailPrivacy: Bool?

        package init(enableImprovedEmailPrivacy: Bool? = nil) {
            self.enableImprovedEmailPrivacy = enableImprovedEmailPrivacy
        }
    }

    package var signIn: SignIn?
    package var emailPrivacyConfig: EmailPrivacy?

    package init(signIn: SignIn? = nil, emailPrivacyConfig: EmailPrivacy? = nil) {
        self.signIn = signIn
        self.emailPrivacyConfig = emailPrivacyConfig
    }
}

/// `{}`: what the emulator's reset answers.
package struct EmptyResponse: Codable, Sendable {
    package init() {}
}
