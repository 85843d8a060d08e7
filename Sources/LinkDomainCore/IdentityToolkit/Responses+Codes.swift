// The answers about out-of-band codes, field for field as Google spells them. Optional fields that are nil are left out, as
// Google leaves them out.

/// `accounts:sendOobCode`; the code and link only for an admin's `returnOobLink`.
package struct GetOobConfirmationCodeResponse: Codable, Sendable {
    package var kind = "identitytoolkit#GetOobConfirmationCodeResponse"
    package var email: String
    package var oobCode: String?
    package var oobLink: String?

    package init(
        kind: String = "identitytoolkit#GetOobConfirmationCodeResponse",
        email: String,
        oobCode: String? = nil,
        oobLink: String? = nil
    ) {
        self.kind = kind
        self.email = email
        self.oobCode = oobCode
        self.oobLink = oobLink
    }
}

/// `accounts:resetPassword`: checking a code, or spending a password-reset code.
package struct ResetPasswordResponse: Codable, Sendable {
    package var kind = "identitytoolkit#ResetPasswordResponse"
    package var requestType: OobRequestType
    package var email: String?
    package var newEmail: String?

    package init(
        kind: String = "identitytoolkit#ResetPasswordResponse",
        requestType: OobRequestType,
        email: String? = nil,
        newEmail: String? = nil
    ) {
        self.kind = kind
        self.requestType = requestType
        self.email = email
        self.newEmail = newEmail
    }
}

/// The emulator's outbox, `GET /emulator/v1/projects/{projectID}/oobCodes`.
package struct OobCodesResponse: Codable, Sendable {
    package struct Code: Codable, Sendable {
        package var email: String
        package var oobCode: String
        package var oobLink: String
        package var requestType: String

        package init(email: String, oobCode: String, oobLink: String, requestType: String) {
            self.email = email
            self.oobCode = oobCode
            self.oobLink = oobLink
            self.requestType = requestType
        }
    }

    package var oobCodes: [Code]

    package init(oobCodes: [Code]) {
        self.oobCodes = oobCodes
    }
}
