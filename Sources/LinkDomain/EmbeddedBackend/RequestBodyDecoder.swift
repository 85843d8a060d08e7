import Foundation
import HTTPTypes
import LinkDomainCore
import LinkDomainStorage

/// Decodes every Identity Toolkit request body, JSON or form-encoded, into a ``RequestBody``,
/// refusing what no client sends: bodies over 64 KiB, nesting deeper than a few levels, lists
/// longer than a batch, and fields longer than Identity Toolkit allows. Each refusal is the error
/// a client would get from Google for that field, so nothing past this point meets unbounded input.
package enum RequestBodyDecoder {
    package static let maximumBodyBytes = 64 * 1024
    /// An import's body (up to 1000 accounts with their hashes, as Google takes).
    static let maximumLargeBodyBytes = 1024 * 1024
    /// The answer to a body over ``maximumBodyBytes``, whether the server stopped reading it or the decoder measured it.
    static let bodyTooLarge = IdentityToolkitError(
        .invalidArgument, detail: "the request body is larger than \(maximumBodyBytes) bytes",
        status: .contentTooLarge)
    /// Request bodies are flat objects of strings, numbers and short lists of strings or objects.
    static let maximumDepth = 8
    /// Batch calls take up to 1000 accounts or IDs, as Google's do.
    static let maximumListCount = 1000

    /// How long a field's string may be, and the error for a longer one.
    struct FieldLimit: Sendable {
        var maximum: Int
        /// Count characters (passwords, names people type) rather than UTF-8 bytes (identifiers, URLs).
        var countsCharacters = false
        var error: IdentityToolkitError

        /// Throws ``error`` when `value` is longer than allowed.
        func check(_ value: String) throws(IdentityToolkitError) {
            // The byte count bounds the character count: only count characters when the bytes could exceed the limit.
            if value.utf8.count > maximum && (!countsCharacters || value.count > maximum) { throw error }
        }
    }

    /// A password: at most 4096 characters, as Identity Toolkit's password policy caps it.
    static let passwordLimit = FieldLimit(
        maximum: 4096, countsCharacters: true,
        error: IdentityToolkitError(
            .passwordDoesNotMeetRequirements,
            detail: "Missing password requirements: [Password may contain at most 4096 characters]"))
    static let oobCodeLimit = FieldLimit(maximum: 256, error: .invalidOobCode)

    /// Fields Identity Toolkit bounds; any other string is held to ``defaultLimit``.
    static let limits: [String: FieldLimit] = {
        let email = FieldLimit(maximum: 254, error: .invalidEmail)
        let password = passwordLimit
        let url = 2048
        return [
            "email": email, "identifier": email,
            "newEmail": FieldLimit(maximum: 254, error: IdentityToolkitError(.invalidNewEmail)),
            "password": password, "newPassword": password, "oldPassword": password,
            "displayName": FieldLimit(maximum: 256, countsCharacters: true, error: IdentityToolkitError(.invalidDisplayName)),
            "photoUrl": FieldLimit(maximum: url, error: IdentityToolkitError(.invalidPhotoURL)),
            "continueUrl": FieldLimit(maximum: url, error: .invalidContinueURI),
            "continueUri": FieldLimit(maximum: url, error: .invalidContinueURI),
            "linkDomain": FieldLimit(maximum: 253, error: .invalidHostingLinkDomain),
            "dynamicLinkDomain": FieldLimit(maximum: 253, error: IdentityToolkitError(.invalidDynamicLinkDomain)),
            "iOSBundleId": FieldLimit(maximum: 155, error: IdentityToolkitError(.invalidIOSBundleID)),
            "iOSAppStoreId": FieldLimit(maximum: 32, error: IdentityToolkitError(.invalidIOSAppStoreID)),
            "androidPackageName": FieldLimit(maximum: 255, error: IdentityToolkitError(.invalidAndroidPackageName)),
            "androidMinimumVersion": FieldLimit(maximum: 64, error: IdentityToolkitError(.invalidAndroidMinimumVersion)),
            // Firebase user IDs: at most 128 characters.
            "localId": FieldLimit(maximum: 128, error: IdentityToolkitError(.invalidLocalID)),
            "tenantId": FieldLimit(maximum: 128, error: IdentityToolkitError(.invalidTenantID)),
            "idToken": FieldLimit(maximum: 8192, error: .invalidIDToken),
            "refresh_token": FieldLimit(maximum: 1024, error: .invalidRefreshToken),
            "refreshToken": FieldLimit(maximum: 1024, error: .invalidRefreshToken),
            "oobCode": oobCodeLimit,
            "requestType": FieldLimit(maximum: 64, error: IdentityToolkitError(.invalidRequestType)),
            "sessionId": FieldLimit(maximum: 256, error: IdentityToolkitError(.invalidSessionID)),
            // Custom claims: Google's limit is 1000 bytes of JSON.
            "customAttributes": FieldLimit(maximum: 1000, error: IdentityToolkitError(.claimsTooLarge)),
            "validSince": FieldLimit(maximum: 20, error: IdentityToolkitError(.invalidValidSince)),
            "phoneNumber": FieldLimit(maximum: 32, error: AccountAttributes.invalidPhoneNumber),
        ]
    }()

    static let defaultLimit = FieldLimit(maximum: 8192, error: IdentityToolkitError(.invalidArgument, detail: "a field is too long"))

    /// Decodes `bytes` as the body of a request whose `Content-Type` is `contentType`.
    package static func decode(_ bytes: some Collection<UInt8>, contentType: String?, maximumBytes: Int = maximumBodyBytes) throws(IdentityToolkitError)
        -> RequestBody
    {
        if bytes.isEmpty { return RequestBody() }
        guard bytes.count <= maximumBytes else { throw bodyTooLarge }
        let fields: [String: JSONValue]
        if contentType?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true {
            fields = form(bytes)
        } else {
            fields = try json(Array(bytes))
        }
        try check(fields)
        return RequestBody(fields)
    }

    /// `name=value&...` (``QueryString/formFields(_:)``), each value a string.
    static func form(_ bytes: some Collection<UInt8>) -> [String: JSONValue] {
        QueryString.formFields(bytes).mapValues(JSONValue.string)
    }

    static func json(_ bytes: [UInt8]) throws(IdentityToolkitError) -> [String: JSONValue] {
        // The depth is checked before decoding: a decoder recursing into 30,000 nested lists
        // would exhaust the stack first.
        guard depth(of: bytes) <= maximumDepth else {
            throw IdentityToolkitError(.invalidJSON, detail: "the request body nests deeper than \(maximumDepth) levels")
        }
        guard case .object(let fields) = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) else {
            throw IdentityToolkitError(.invalidJSON, detail: "the request body is not a JSON object")
        }
        return fields
    }

    /// The deepest nesting of `[` and `{` outside strings (an upper bound on the parse's depth).
    static func depth(of bytes: [UInt8]) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth = max(0, depth - 1)
            default: break
            }
        }
        return deepest
    }

    /// Every string within its field's limit and every list within ``maximumListCount``.
    static func check(_ fields: [String: JSONValue]) throws(IdentityToolkitError) {
        for (name, value) in fields {
            try check(value, limit: limits[name] ?? defaultLimit)
        }
    }

    private static func check(_ value: JSONValue, limit: FieldLimit) throws(IdentityToolkitError) {
        switch value {
        case .string(let string):
            try limit.check(string)
        case .list(let elements):
            guard elements.count <= maximumListCount else {
                throw IdentityToolkitError(.invalidArgument, detail: "a list holds more than \(maximumListCount) items")
            }
            for element in elements { try check(element, limit: limit) }
        case .object(let members):
            try check(members)
        case .integer, .number, .boolean, .null:
            break
        }
    }
}
