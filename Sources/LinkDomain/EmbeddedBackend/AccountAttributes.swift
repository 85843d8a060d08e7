import Foundation

/// The account attributes an admin sets that Google checks before storing: phone numbers and
/// custom claims.
enum AccountAttributes {
    static let invalidPhoneNumber = IdentityToolkitError(.invalidPhoneNumber, detail: "Invalid format.")

    /// An E.164 number (`+` and 2 to 15 digits, the first not 0), or the error Google answers.
    static func phoneNumber(_ raw: String) throws(IdentityToolkitError) -> String {
        let digits = raw.utf8.dropFirst()
        guard raw.utf8.first == UInt8(ascii: "+"), (2...15).contains(digits.count), digits.first != UInt8(ascii: "0"),
            digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { throw invalidPhoneNumber }
        return raw
    }

    /// Claim names a token already uses, which custom claims may not take.
    static let reservedClaims: Set<String> = [
        "acr", "amr", "at_hash", "aud", "auth_time", "azp", "cnf", "c_hash", "exp", "firebase", "iat", "iss", "jti", "nbf", "nonce", "sub",
    ]

    /// Custom claims as stored: nil for none (`{}` or empty), else the JSON object's text. Google's
    /// errors otherwise: too large, not an object, or a reserved name.
    static func customClaims(_ text: String) throws(IdentityToolkitError) -> String? {
        guard text.utf8.count <= 1000 else { throw IdentityToolkitError(.claimsTooLarge) }
        if text.trimmingCharacters(in: .whitespaces).isEmpty { return nil }
        guard case .object(let claims)? = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else {
            throw IdentityToolkitError(.invalidClaims)
        }
        if let reserved = claims.keys.sorted().first(where: reservedClaims.contains) {
            throw IdentityToolkitError(.forbiddenClaim, detail: reserved)
        }
        return claims.isEmpty ? nil : text
    }
}
