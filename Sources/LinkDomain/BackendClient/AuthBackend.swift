/// Where the link domain verifies and spends action codes: the embedded backend, a Firebase Auth
/// emulator, or Google Identity Toolkit. Pages talk only to this protocol.
public protocol AuthBackend: Sendable {
    /// What a code is for, without spending it (`accounts:resetPassword` with only `oobCode`).
    func checkCode(_ code: String, context: BackendCallContext) async throws(BackendError) -> CodeInfo
    /// Spends a PASSWORD_RESET code, setting the new password.
    func resetPassword(code: String, newPassword: String, context: BackendCallContext) async throws(BackendError) -> CodeInfo
    /// Spends a verify-email, recover-email, change-email or revert-second-factor code, but only if
    /// it is of `requestType` (a code of another kind is refused unspent, as `INVALID_OOB_CODE`).
    func applyCode(_ code: String, expecting requestType: String, context: BackendCallContext) async throws(BackendError) -> CodeInfo
    /// Whether the backend answers at all, for `/readyz`.
    func isReachable() async -> Bool
}

/// The link's own `apiKey` and `tenantId`, which Identity Toolkit calls carry.
public struct BackendCallContext: Sendable, Equatable {
    public var apiKey: String?
    public var tenantID: String?

    public init(apiKey: String? = nil, tenantID: String? = nil) {
        self.apiKey = apiKey
        self.tenantID = tenantID
    }
}

/// What the backend says about a code.
public struct CodeInfo: Sendable, Equatable {
    /// `PASSWORD_RESET`, `VERIFY_EMAIL`, `EMAIL_SIGNIN`, `RECOVER_EMAIL`, `VERIFY_AND_CHANGE_EMAIL`, ...
    public var requestType: String
    public var email: String?
    public var newEmail: String?

    public init(requestType: String, email: String? = nil, newEmail: String? = nil) {
        self.requestType = requestType
        self.email = email
        self.newEmail = newEmail
    }
}

/// Why a backend call failed, in the terms pages explain.
public enum BackendError: Error, Sendable, Equatable {
    /// Identity Toolkit refused: the message's code (`EXPIRED_OOB_CODE`) and detail.
    case rejected(code: String, detail: String?)
    /// The backend could not be reached (connection refused, DNS, TLS).
    case unreachable
    /// The backend did not answer in time.
    case timedOut
    /// The backend answered with something that is not Identity Toolkit's JSON.
    case invalidResponse

    /// Splits `"WEAK_PASSWORD : Password should be at least 6 characters"` into code and detail.
    static func fromMessage(_ message: String) -> BackendError {
        let parts = message.components(separatedBy: " : ")
        return .rejected(code: parts[0], detail: parts.count > 1 ? parts.dropFirst().joined(separator: " : ") : nil)
    }
}
