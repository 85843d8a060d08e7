import Foundation
import JWTKit
import LinkDomainCore
import LinkDomainStorage

/// The claims of a Firebase ID token (and of a session cookie, which carries the same ones under
/// another issuer): the standard ones by name, an account's custom claims beside them at the top level.
struct IDTokenClaims: JWTPayload, Equatable {
    struct FirebaseClaim: Codable, Equatable, Sendable {
        var identities: [String: [String]]
        var signInProvider: String
        var tenant: String?

        enum CodingKeys: String, CodingKey {
            case identities
            case signInProvider = "sign_in_provider"
            case tenant
        }
    }

    var iss: String
    var aud: String
    var authTime: Int64
    var userID: String
    var sub: String
    var iat: Int64
    var exp: Int64
    var email: String?
    var emailVerified: Bool?
    var phoneNumber: String?
    var name: String?
    var picture: String?
    /// `anonymous` for anonymous accounts, as Google writes it; absent otherwise.
    var providerID: String?
    var firebase: FirebaseClaim
    /// The account's custom claims (never one of the names above: those are refused when set).
    var custom: [String: JSONValue] = [:]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case iss, aud, sub, iat, exp, email, name, picture, firebase
        case authTime = "auth_time"
        case userID = "user_id"
        case emailVerified = "email_verified"
        case phoneNumber = "phone_number"
        case providerID = "provider_id"
    }

    /// Any claim name, for the custom claims.
    struct AnyKey: CodingKey {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    init(
        iss: String, aud: String, authTime: Int64, userID: String, sub: String, iat: Int64, exp: Int64, email: String?, emailVerified: Bool?,
        phoneNumber: String?, name: String?, picture: String?, providerID: String?, firebase: FirebaseClaim, custom: [String: JSONValue]
    ) {
        self.iss = iss
        self.aud = aud
        self.authTime = authTime
        self.userID = userID
        self.sub = sub
        self.iat = iat
        self.exp = exp
        self.email = email
        self.emailVerified = emailVerified
        self.phoneNumber = phoneNumber
        self.name = name
        self.picture = picture
        self.providerID = providerID
        self.firebase = firebase
        self.custom = custom
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        iss = try container.decode(String.self, forKey: .iss)
        aud = try container.decode(String.self, forKey: .aud)
        authTime = try container.decode(Int64.self, forKey: .authTime)
        userID = try container.decode(String.self, forKey: .userID)
        sub = try container.decode(String.self, forKey: .sub)
        iat = try container.decode(Int64.self, forKey: .iat)
        exp = try container.decode(Int64.self, forKey: .exp)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        emailVerified = try container.decodeIfPresent(Bool.self, forKey: .emailVerified)
        phoneNumber = try container.decodeIfPresent(String.self, forKey: .phoneNumber)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        picture = try container.decodeIfPresent(String.self, forKey: .picture)
        providerID = try container.decodeIfPresent(String.self, forKey: .providerID)
        firebase = try container.decode(FirebaseClaim.self, forKey: .firebase)
        let known = Set(CodingKeys.allCases.map(\.stringValue))
        let all = try decoder.container(keyedBy: AnyKey.self)
        for key in all.allKeys where !known.contains(key.stringValue) {
            custom[key.stringValue] = try all.decode(JSONValue.self, forKey: key)
        }
    }

    func encode(to encoder: any Encoder) throws {
        var all = encoder.container(keyedBy: AnyKey.self)
        for (name, value) in custom.sorted(by: { $0.key < $1.key }) { try all.encode(value, forKey: AnyKey(stringValue: name)) }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(iss, forKey: .iss)
        try container.encode(aud, forKey: .aud)
        try container.encode(authTime, forKey: .authTime)
        try container.encode(userID, forKey: .userID)
        try container.encode(sub, forKey: .sub)
        try container.encode(iat, forKey: .iat)
        try container.encode(exp, forKey: .exp)
        try container.encodeIfPresent(email, forKey: .email)
        try container.encodeIfPresent(emailVerified, forKey: .emailVerified)
        try container.encodeIfPresent(phoneNumber, forKey: .phoneNumber)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encodeIfPresent(picture, forKey: .picture)
        try container.encodeIfPresent(providerID, forKey: .providerID)
        try container.encode(firebase, forKey: .firebase)
    }

    func verify(using _: some JWTAlgorithm) throws {
        // Expiry and revocation are checked by ``TokenIssuer/verify(_:now:)`` against the injected clock.
    }
}
