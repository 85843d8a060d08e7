import Foundation
import LinkDomainCore
import LinkDomainStorage

/// The account attributes an admin sets that Google checks before storing: phone numbers and
/// custom claims.
enum AccountAttributes {
    /// An account's email address, trimmed and lower-cased, or `INVALID_EMAIL`.
    ///
    /// The address is written into pages and into signed mails to its owner (the change-email
    /// notice goes to the old address), so it must read as nothing but an address: a dot-atom
    /// local part (RFC 5322's `atext`, less `/`, which only a link needs; letters, marks and
    /// digits of any script), a domain of letters, digits and hyphens in dotted labels. No spaces,
    /// controls, format characters (U+202E turns text around, U+200B hides), private or unassigned
    /// code points, or blanks that look like nothing (U+2800, U+3164...): nothing that could make
    /// `https://evil.example/...` or a spaced-out sentence pass for an address.
    static func email(_ raw: String) throws(IdentityToolkitError) -> String {
        let email = raw.trimmingCharacters(in: .whitespaces).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.utf8.count <= 254, parts.count == 2, isLocalPart(parts[0]), isDomain(parts[1]) else { throw IdentityToolkitError.invalidEmail }
        return email
    }

    /// `atext` allowed in a local part besides letters and digits (RFC 5322, without `/`).
    private static let localSymbols = Set("!#$%&'*+-=?^_`{|}~".unicodeScalars)
    /// Letters by category that render as blank space.
    private static let blanks: Set<UInt32> = [0x115F, 0x1160, 0x2800, 0x3164, 0xFFA0, 0x17B4, 0x17B5]

    private static func isLocalPart(_ local: Substring) -> Bool {
        guard !local.isEmpty, local.utf8.count <= 64, !local.hasPrefix("."), !local.hasSuffix("."), !local.contains("..") else { return false }
        return local.unicodeScalars.allSatisfy { scalar in
            scalar == "." || localSymbols.contains(scalar) || isVisibleLetterOrDigit(scalar)
        }
    }

    private static func isDomain(_ domain: Substring) -> Bool {
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, domain.utf8.count <= 253 else { return false }
        return labels.allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.unicodeScalars.allSatisfy { $0 == "-" || isVisibleLetterOrDigit($0) }
        }
    }

    private static func isVisibleLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) }
        guard !blanks.contains(scalar.value) else { return false }
        switch scalar.properties.generalCategory {
        case .lowercaseLetter, .uppercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .nonspacingMark, .spacingMark,
            .decimalNumber:
            return true
        default:
            return false
        }
    }

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
