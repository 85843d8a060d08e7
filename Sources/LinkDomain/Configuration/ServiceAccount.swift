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

    private struct File: Decodable {
        var type: String?
        var client_email: String?
        var private_key_id: String?
        var private_key: String?
        var project_id: String?
        var token_uri: String?
    }

    /// Why a file is not a service account's key, in words that quote none of it.
    struct Problem: Error {
        let reason: String
    }

    /// The service account in `data`, or why it is not one (without any of its contents).
    static func parse(_ data: Data) -> Result<ServiceAccount, Problem> {
        guard let file = try? JSONDecoder().decode(File.self, from: data) else { return .failure(Problem(reason: "is not a JSON object")) }
        guard file.type == nil || file.type == "service_account" else { return .failure(Problem(reason: "is a \(file.type ?? "") key, not a service account's")) }
        guard let email = file.client_email, let key = file.private_key, key.contains("PRIVATE KEY") else {
            return .failure(Problem(reason: "lacks client_email or private_key"))
        }
        return .success(ServiceAccount(clientEmail: email, privateKeyID: file.private_key_id ?? "", privateKeyPEM: key, projectID: file.project_id,
                                       tokenURI: file.token_uri ?? "https://oauth2.googleapis.com/token"))
    }
}
