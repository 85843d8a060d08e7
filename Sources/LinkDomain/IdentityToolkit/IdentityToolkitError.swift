import Foundation
import Hummingbird

/// An error as Identity Toolkit reports it:
/// `{"error":{"code":400,"message":"CODE[ : detail]","errors":[{"message":"CODE","domain":"global","reason":"invalid"}]}}`.
///
/// The code is typed; the `"CODE : detail"` message is only ever written (``message``), never split.
public struct IdentityToolkitError: Error, Sendable, Equatable {
    public var code: IdentityToolkitErrorCode
    /// Google's explanation after the code, where it sends one (`Password should be at least 6 characters`).
    public var detail: String?
    public var status: HTTPResponse.Status

    public init(_ code: IdentityToolkitErrorCode, detail: String? = nil, status: HTTPResponse.Status = .badRequest) {
        self.code = code
        self.detail = detail
        self.status = status
    }

    /// The wire message: the code, then ` : ` and the detail when there is one.
    public var message: String { detail.map { "\(code.rawValue) : \($0)" } ?? code.rawValue }

    static let invalidOobCode = Self(.invalidOobCode)
    static let expiredOobCode = Self(.expiredOobCode)
    static let emailNotFound = Self(.emailNotFound)
    static let emailExists = Self(.emailExists)
    static let userNotFound = Self(.userNotFound)
    static let userDisabled = Self(.userDisabled)
    static let invalidEmail = Self(.invalidEmail)
    static let missingEmail = Self(.missingEmail)
    static let missingPassword = Self(.missingPassword)
    static let missingOobCode = Self(.missingOobCode)
    static let invalidPassword = Self(.invalidPassword)
    static let invalidLoginCredentials = Self(.invalidLoginCredentials)
    static let invalidIDToken = Self(.invalidIDToken)
    static let tokenExpired = Self(.tokenExpired)
    static let missingIDToken = Self(.missingIDToken)
    static let credentialTooOldLoginAgain = Self(.credentialTooOldLoginAgain)
    static let weakPassword = Self(.weakPassword, detail: "Password should be at least 6 characters")
    static let missingRequestType = Self(.missingRequestType)
    static let missingContinueURI = Self(.missingContinueURI)
    static let invalidContinueURI = Self(.invalidContinueURI)
    static let unauthorizedDomain = Self(.unauthorizedDomain, detail: "Domain not allowlisted by project")
    static let invalidHostingLinkDomain = Self(
        .invalidHostingLinkDomain,
        detail: "The provided hosting link domain is not configured in Firebase Hosting or is not owned by the current project. "
            + "This cannot be a default hosting domain (web.app or firebaseapp.com).")
    static let missingIOSBundleID = Self(.missingIOSBundleID)
    static let missingAndroidPackageName = Self(.missingAndroidPackageName)
    static let missingLocalID = Self(.missingLocalID)
    static let invalidRefreshToken = Self(.invalidRefreshToken)
    static let missingRefreshToken = Self(.missingRefreshToken)
    static let operationNotAllowed = Self(.operationNotAllowed)
    static let duplicateLocalID = Self(.duplicateLocalID)
    static let missingAPIKey = Self(.missingAPIKey, status: .forbidden)
    /// Google's answer to a key it does not know.
    static let invalidAPIKey = Self(.invalidAPIKey)
    /// Google's answer to a bearer token it does not accept.
    static let unauthenticated = Self(.unauthenticated, detail: "Request had invalid authentication credentials.", status: .unauthorized)
    static let tooManyAttempts = Self(.tooManyAttemptsTryLater, status: .tooManyRequests)
    static let insufficientPermission = Self(.insufficientPermission, status: .unauthorized)
    package static let internalError = Self(.internalError, status: .internalServerError)

    static func notFound(_ path: String) -> Self { Self(.notFound, detail: path, status: .notFound) }

    /// The JSON body Google answers with.
    var body: Body {
        Body(error: .init(code: status.code, message: message, errors: [.init(message: code.rawValue)]))
    }

    struct Body: Encodable, Sendable {
        struct Detail: Encodable, Sendable {
            let code: Int
            let message: String
            let errors: [Reason]
        }

        struct Reason: Encodable, Sendable {
            let message: String
            var domain = "global"
            var reason = "invalid"
        }

        let error: Detail
    }
}
