import Foundation

/// A Google service account's JSON key file, as the Cloud console downloads it: what signs custom
/// tokens (and, to reach Google, OAuth assertions). The private key is a secret: never printed.
public struct ServiceAccount: Sendable, Equatable {
    public var clientEmail: String
    public var privateKeyID: String
    /// PEM, `-----BEGIN PRIVATE KEY-----`.
    public var privateKeyPEM: String
    public var projectID: String?
    /// Where an OAuth2 assertion is exchanged for an access token.
    public var tokenURI: String

    package init(clientEmail: String, privateKeyID: String, privateKeyPEM: String, projectID: String? = nil, tokenURI: String) {
        self.clientEmail = clientEmail
        self.privateKeyID = privateKeyID
        self.privateKeyPEM = privateKeyPEM
        self.projectID = projectID
        self.tokenURI = tokenURI
    }

    private struct File: Decodable {
        package var type: String?
        package var client_email: String?
        package var private_key_id: String?
        package var private_key: String?
        package var project_id: String?
        package var token_uri: String?
    }

    /// Why a file is not a service account's key, in words that quote none of it.
    package struct Problem: Error {
        package let reason: String
    }

    /// The service account in `data`, or why it is not one (without any of its contents).
    package static func parse(_ data: Data) -> Result<ServiceAccount, Problem> {
        guard let file = try? JSONDecoder().decode(File.self, from: data) else { return .failure(Problem(reason: "is not a JSON object")) }
        guard file.type == nil || file.type == "service_account" else {
            return .failure(Problem(reason: "is a \(file.type ?? "") key, not a service account's"))
        }
        guard let email = file.client_email, let key = file.private_key, key.contains("PRIVATE KEY") else {
            return .failure(Problem(reason: "lacks client_email or private_key"))
        }
        return .success(
            ServiceAccount(
                clientEmail: email, privateKeyID: file.private_key_id ?? "", privateKeyPEM: key, projectID: file.project_id,
                tokenURI: file.token_uri ?? "https://oauth2.googleapis.com/token"))
    }
}
