import Foundation
import HTTPTypes

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

    package static let invalidOobCode = Self(.invalidOobCode)
    package static let expiredOobCode = Self(.expiredOobCode)
    package static let emailNotFound = Self(.emailNotFound)
    package static let emailExists = Self(.emailExists)
    package static let userNotFound = Self(.userNotFound)
    package static let userDisabled = Self(.userDisabled)
    package static let invalidEmail = Self(.invalidEmail)
    package static let missingEmail = Self(.missingEmail)
    package static let missingPassword = Self(.missingPassword)
    package static let missingOobCode = Self(.missingOobCode)
    package static let invalidPassword = Self(.invalidPassword)
    package static let invalidLoginCredentials = Self(.invalidLoginCredentials)
    package static let invalidIDToken = Self(.invalidIDToken)
    package static let tokenExpired = Self(.tokenExpired)
    package static let missingIDToken = Self(.missingIDToken)
    package static let credentialTooOldLoginAgain = Self(.credentialTooOldLoginAgain)
    package static let weakPassword = Self(.weakPassword, detail: "Password should be at least 6 characters")
    package static let missingRequestType = Self(.missingRequestType)
    package static let missingContinueURI = Self(.missingContinueURI)
    package static let invalidContinueURI = Self(.invalidContinueURI)
    package static let unauthorizedDomain = Self(.unauthorizedDomain, detail: "Domain not allowlisted by project")
    package static let invalidHostingLinkDomain = Self(
        .invalidHostingLinkDomain,
        detail: "The provided hosting link domain is not configured in Firebase Hosting or is not owned by the current project. "
            + "This cannot be a default hosting domain (web.app or firebaseapp.com).")
    package static let missingIOSBundleID = Self(.missingIOSBundleID)
    package static let missingAndroidPackageName = Self(.missingAndroidPackageName)
    package static let missingLocalID = Self(.missingLocalID)
    package static let invalidRefreshToken = Self(.invalidRefreshToken)
    package static let missingRefreshToken = Self(.missingRefreshToken)
    package static let operationNotAllowed = Self(.operationNotAllowed)
    package static let duplicateLocalID = Self(.duplicateLocalID)
    package static let missingAPIKey = Self(.missingAPIKey, status: .forbidden)
    /// Google's answer to a key it does not know.
    package static let invalidAPIKey = Self(.invalidAPIKey)
    /// Google's answer to a bearer token it does not accept.
    package static let unauthenticated = Self(.unauthenticated, detail: "Request had invalid authentication credentials.", status: .unauthorized)
    package static let tooManyAttempts = Self(.tooManyAttemptsTryLater, status: .tooManyRequests)
    package static let insufficientPermission = Self(.insufficientPermission, status: .unauthorized)
    package static let internalError = Self(.internalError, status: .internalServerError)

    package static func notFound(_ path: String) -> Self { Self(.notFound, detail: path, status: .notFound) }

    /// The JSON body Google answers with.
    package var body: Body {
        Body(error: .init(code: status.code, message: message, errors: [.init(message: code.rawValue)]))
    }

    package struct Body: Encodable, Sendable {
        package struct Detail: Encodable, Sendable {
            package let code: Int
            package let message: String
            package let errors: [Reason]

            package init(code: Int, message: String, errors: [Reason]) {
                self.code = code
                self.message = message
                self.errors = errors
            }
        }

        package struct Reason: Encodable, Sendable {
            package let message: String
            package var domain = "global"
            package var reason = "invalid"
        }

        package let error: Detail

        package init(error: Detail) {
            self.error = error
        }
    }
}
