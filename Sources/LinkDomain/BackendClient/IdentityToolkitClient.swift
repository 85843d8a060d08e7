import AsyncHTTPClient
import Foundation
import LinkDomainCore
import LinkDomainStorage
import NIOCore
import NIOHTTP1

/// ``AuthBackend`` over HTTP: Google Identity Toolkit, or a Firebase Auth emulator.
///
/// Uses a pooled async-http-client; every call has a deadline. Only the check-only call is retried,
/// and only when the connection failed (it spends nothing); a spending call that fails in transit
/// is reported, never repeated.
public struct IdentityToolkitClient: AuthBackend {
    /// `https://identitytoolkit.googleapis.com/v1` or `http://HOST:PORT/identitytoolkit.googleapis.com/v1`.
    public let baseURL: String
    /// Used when a link carries no `apiKey`.
    public let defaultAPIKey: String
    public let timeout: TimeAmount
    public let checkAttempts: Int
    private let client: HTTPClient

    public init(
        baseURL: String, defaultAPIKey: String, timeout: TimeAmount = .seconds(10), checkAttempts: Int = 3,
        client: HTTPClient = IdentityToolkitClient.sharedClient
    ) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.defaultAPIKey = defaultAPIKey
        self.timeout = timeout
        self.checkAttempts = max(1, checkAttempts)
        self.client = client
    }

    /// One pooled client for the process (never shut down, like `HTTPClient.shared`). A refused
    /// connection fails at once and a connection attempt gives up after 3 s, so a visitor hears
    /// that the backend is down in seconds, not at the deadline; the check-only call retries itself.
    public static let sharedClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(3))
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.redirectConfiguration = .disallow
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    /// Google's production endpoint.
    public static func google(apiKey: String) -> IdentityToolkitClient {
        IdentityToolkitClient(baseURL: "https://identitytoolkit.googleapis.com/v1", defaultAPIKey: apiKey)
    }

    /// A Firebase Auth emulator at `host:port`.
    public static func emulator(host: String, apiKey: String) -> IdentityToolkitClient {
        IdentityToolkitClient(baseURL: "http://\(host)/identitytoolkit.googleapis.com/v1", defaultAPIKey: apiKey)
    }

    public func checkCode(_ code: String, context: BackendCallContext) async throws(BackendError) -> CodeInfo {
        var attempt = 1
        while true {
            do {
                return try await post("accounts:resetPassword", ["oobCode": .string(code)], context: context).codeInfo
            } catch .unreachable where attempt < checkAttempts {
                // A connection that failed outright is worth another try; a refusal or a hang is not
                // (a hang would make the visitor wait the whole timeout again).
                try? await Task.sleep(for: .milliseconds(100 * attempt))
                attempt += 1
            }
        }
    }

    public func resetPassword(code: String, newPassword: String, context: BackendCallContext) async throws(BackendError) -> CodeInfo {
        try await post("accounts:resetPassword", ["oobCode": .string(code), "newPassword": .string(newPassword)], context: context).codeInfo
    }

    public func applyCode(_ code: String, expecting requestType: OobRequestType, context: BackendCallContext) async throws(BackendError) -> CodeInfo {
        let info = try await checkCode(code, context: context)
        guard info.requestType == requestType else { throw .rejected(BackendRefusal(.invalidOobCode, detail: "the code is for another action")) }
        let applied = try await post("accounts:update", ["oobCode": .string(code)], context: context)
        return CodeInfo(requestType: info.requestType, email: applied.email ?? info.email, newEmail: info.newEmail)
    }

    public func isReachable() async -> Bool {
        var request = HTTPClientRequest(url: "\(baseURL)/projects?key=\(ActionLinkEncoder.percentEncode(defaultAPIKey))")
        request.method = .GET
        // Any HTTP answer means the backend is there; only transport failures make it unready.
        return (try? await client.execute(request, timeout: timeout)) != nil
    }

    private func post(_ operation: String, _ fields: [String: JSONValue], context: BackendCallContext)
        async throws(BackendError) -> CodeAnswer
    {
        var body = fields
        if let tenantID = context.tenantID { body["tenantId"] = .string(tenantID) }
        let key = ActionLinkEncoder.percentEncode(context.apiKey ?? defaultAPIKey)
        return try await IdentityToolkitHTTP.post("\(baseURL)/\(operation)?key=\(key)", JSONValue.object(body), client: client, timeout: timeout)
    }

    /// What the pages read of `accounts:resetPassword` and `accounts:update` answers; every field is
    /// optional, as each backend leaves out different ones.
    struct CodeAnswer: Decodable {
        var requestType: String?
        var email: String?
        var newEmail: String?

        var codeInfo: CodeInfo { CodeInfo(requestType: requestType.flatMap(OobRequestType.init(rawValue:)), email: email, newEmail: newEmail) }
    }
}
