import Foundation
import LinkDomainCore
import LinkDomainStorage

/// Where the link domain verifies and spends action codes: the embedded backend, a Firebase Auth
/// emulator, or Google Identity Toolkit. Pages talk only to this protocol.
public protocol AuthBackend: Sendable {
    /// What a code is for, without spending it (`accounts:resetPassword` with only `oobCode`).
    func checkCode(_ code: String, context: BackendCallContext) async throws(BackendError) -> CodeInfo
    /// ``checkCode(_:context:)``'s answer for a live code, when the backend has it at hand without
    /// waiting (the embedded backend's SQLite file), for the event loop's form; nil otherwise, and
    /// for every code that is not live: the caller then asks ``checkCode(_:context:)``, which says why.
    func checkCodeWithoutWaiting(_ code: String) -> CodeInfo?
    /// Spends a PASSWORD_RESET code, setting the new password.
    func resetPassword(code: String, newPassword: String, context: BackendCallContext) async throws(BackendError) -> CodeInfo
    /// Spends a verify-email, recover-email, change-email or revert-second-factor code, but only if
    /// it is of `requestType` (a code of another kind is refused unspent, as `INVALID_OOB_CODE`).
    func applyCode(_ code: String, expecting requestType: OobRequestType, context: BackendCallContext) async throws(BackendError) -> CodeInfo
    /// Whether the backend answers at all, for `/readyz`.
    func isReachable() async -> Bool
}

extension AuthBackend {
    public func checkCodeWithoutWaiting(_ code: String) -> CodeInfo? { nil }
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
    /// What the code is for; nil when the backend names a kind this service does not know (no
    /// page serves such a code).
    public var requestType: OobRequestType?
    public var email: String?
    public var newEmail: String?
    /// Whether an app asked for the code; nil when the backend does not say (Identity Toolkit's
    /// check does not), and the link's shape tells instead (``CodeFacts/askedByApp(_:)``).
    public var askedByApp: Bool?

    public init(requestType: OobRequestType?, email: String? = nil, newEmail: String? = nil, askedByApp: Bool? = nil) {
        self.requestType = requestType
        self.email = email
        self.newEmail = newEmail
        self.askedByApp = askedByApp
    }

    /// What the pages decide from: live for `link`'s action, else not usable by it.
    package func facts(for link: ActionLink) -> CodeFacts {
        CodeFacts(state: requestType == link.mode.requestType ? .live : .usedOrInvalid, askedByApp: askedByApp)
    }
}

/// Why a backend call failed, in the terms pages explain.
public enum BackendError: Error, Sendable, Equatable {
    /// Identity Toolkit refused, saying why.
    case rejected(BackendRefusal)
    /// The backend could not be reached (connection refused, DNS, TLS).
    case unreachable
    /// The backend did not answer in time.
    case timedOut
    /// The backend answered with something that is not Identity Toolkit's JSON.
    case invalidResponse
}

/// A backend's refusal: Identity Toolkit's code, typed when LinkDomain knows it, and its detail.
public struct BackendRefusal: Sendable, Equatable {
    /// The code as the backend spelled it (a backend may send one newer than this build knows).
    public var spelling: String
    public var detail: String?

    /// The code, when it is one LinkDomain knows.
    public var code: IdentityToolkitErrorCode? { IdentityToolkitErrorCode(rawValue: spelling) }

    public init(_ code: IdentityToolkitErrorCode, detail: String? = nil) {
        spelling = code.rawValue
        self.detail = detail
    }

    /// Reads the message of an HTTP backend's error body, `CODE` or `CODE : detail`, as Google writes it.
    init(wireMessage: String) {
        if let separator = wireMessage.range(of: " : ") {
            spelling = String(wireMessage[..<separator.lowerBound])
            detail = String(wireMessage[separator.upperBound...])
        } else {
            spelling = wireMessage
            detail = nil
        }
    }
}
