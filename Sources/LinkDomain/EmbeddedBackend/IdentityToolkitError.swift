import Foundation
import Hummingbird

/// An error as Identity Toolkit reports it:
/// `{"error":{"code":400,"message":"CODE[ : detail]","errors":[{"message":"...","domain":"global","reason":"invalid"}]}}`.
///
/// Clients match on the message's code (the part before ` : `), so codes are spelled exactly as
/// the real service spells them.
public struct IdentityToolkitError: Error, Sendable, Equatable {
    public var status: HTTPResponse.Status
    public var message: String

    public init(_ code: String, detail: String? = nil, status: HTTPResponse.Status = .badRequest) {
        self.status = status
        self.message = detail.map { "\(code) : \($0)" } ?? code
    }

    static let invalidOobCode = Self("INVALID_OOB_CODE")
    static let expiredOobCode = Self("EXPIRED_OOB_CODE")
    static let emailNotFound = Self("EMAIL_NOT_FOUND")
    static let emailExists = Self("EMAIL_EXISTS")
    static let userNotFound = Self("USER_NOT_FOUND")
    static let userDisabled = Self("USER_DISABLED")
    static let invalidEmail = Self("INVALID_EMAIL")
    static let missingEmail = Self("MISSING_EMAIL")
    static let missingPassword = Self("MISSING_PASSWORD")
    static let missingOobCode = Self("MISSING_OOB_CODE")
    static let invalidPassword = Self("INVALID_PASSWORD")
    static let invalidLoginCredentials = Self("INVALID_LOGIN_CREDENTIALS")
    static let invalidIDToken = Self("INVALID_ID_TOKEN")
    static let tokenExpired = Self("TOKEN_EXPIRED")
    static let missingIDToken = Self("MISSING_ID_TOKEN")
    static let credentialTooOldLoginAgain = Self("CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
    static let weakPassword = Self("WEAK_PASSWORD", detail: "Password should be at least 6 characters")
    static let missingRequestType = Self("MISSING_REQ_TYPE")
    static let missingContinueURI = Self("MISSING_CONTINUE_URI")
    static let invalidContinueURI = Self("INVALID_CONTINUE_URI")
    static let unauthorizedDomain = Self("UNAUTHORIZED_DOMAIN", detail: "Domain not allowlisted by project")
    static let invalidHostingLinkDomain = Self("INVALID_HOSTING_LINK_DOMAIN")
    static let missingIOSBundleID = Self("MISSING_IOS_BUNDLE_ID")
    static let missingAndroidPackageName = Self("MISSING_ANDROID_PACKAGE_NAME")
    static let missingLocalID = Self("MISSING_LOCAL_ID")
    static let invalidRefreshToken = Self("INVALID_REFRESH_TOKEN")
    static let missingRefreshToken = Self("MISSING_REFRESH_TOKEN")
    static let operationNotAllowed = Self("OPERATION_NOT_ALLOWED")
    static let duplicateLocalID = Self("DUPLICATE_LOCAL_ID")
    static let missingAPIKey = Self("The request is missing a valid API key.", status: .forbidden)
    /// Google's answer to a key it does not know.
    static let invalidAPIKey = Self("API key not valid. Please pass a valid API key.")
    /// Google's answer to a bearer token it does not accept.
    static let unauthenticated = Self("UNAUTHENTICATED", detail: "Request had invalid authentication credentials.", status: .unauthorized)
    static let tooManyAttempts = Self("TOO_MANY_ATTEMPTS_TRY_LATER", status: .tooManyRequests)
    static let insufficientPermission = Self("INSUFFICIENT_PERMISSION", status: .unauthorized)
    static let internalError = Self("INTERNAL_ERROR", status: .internalServerError)

    static func notFound(_ path: String) -> Self { Self("NOT_FOUND", detail: path, status: .notFound) }

    var body: JSONValue {
        let code = message.components(separatedBy: " : ").first ?? message
        return .object([
            "error": .object([
                "code": .integer(status.code),
                "message": .string(message),
                "errors": .list([.object(["message": .string(code), "domain": .string("global"), "reason": .string("invalid")])]),
            ])
        ])
    }
}
