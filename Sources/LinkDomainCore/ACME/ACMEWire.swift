import Foundation

/// What an ACME CA sends (RFC 8555 §7.1), as checked values: a field of the wrong type, a status
/// this server does not know, or a body over its limit is an error, never a guess.
public enum ACMEWire {
    /// The largest JSON answer read from a CA; directories, orders and authorizations are a few KiB.
    public static let answerLimit = 64 * 1024
    /// The largest certificate chain read (PEM): a leaf and a few intermediates.
    public static let chainLimit = 256 * 1024

    /// Decodes a CA's JSON answer of at most ``answerLimit`` bytes.
    public static func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws(ACMEError) -> Value {
        guard bytes.count <= answerLimit else { throw .malformedAnswer("an answer of \(bytes.count) bytes") }
        do {
            return try JSONDecoder().decode(Value.self, from: Data(bytes))
        } catch {
            throw .malformedAnswer("not the \(Value.self) RFC 8555 describes")
        }
    }

    /// A URL a CA gave: `https://`, or `http://` on loopback when the directory itself is there.
    public static func checkedURL(_ value: String, allowingLoopbackHTTP: Bool) throws(ACMEError) -> String {
        guard value.utf8.count <= 2048, let address = WebAddress(value),
            address.scheme == "https" || (allowingLoopbackHTTP && address.scheme == "http" && address.isLoopback)
        else { throw .malformedAnswer("a URL that is not https://") }
        return value
    }

    /// A challenge token: base64url, as it is used in a path (RFC 8555 §8.1, 8.3).
    public static func isWellFormedToken(_ token: String) -> Bool {
        (16...256).contains(token.utf8.count) && Base64URL.isAlphabet(token)
    }
}

/// An ACME failure, said without secrets: the CA's problem is cut to printable text.
public enum ACMEError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The CA answered with a problem document (RFC 7807).
    case problem(ACMEProblem)
    /// The CA's answer was not what the protocol says.
    case malformedAnswer(String)
    /// The CA could not be reached, or took too long.
    case unreachable(String)
    /// The order or an authorization failed or did not finish in time.
    case orderFailed(String)

    public var description: String {
        switch self {
        case .problem(let problem): "the CA refused: \(problem.summary)"
        case .malformedAnswer(let what): "the CA's answer was malformed: \(what)"
        case .unreachable(let why): "the CA could not be reached: \(why)"
        case .orderFailed(let why): "the order failed: \(why)"
        }
    }
}

/// An RFC 7807 problem document, as a CA sends it.
public struct ACMEProblem: Decodable, Sendable, Equatable {
    public var type: String?
    public var detail: String?
    public var status: Int?

    public init(type: String?, detail: String?, status: Int?) {
        self.type = type
        self.detail = detail
        self.status = status
    }

    /// `urn:ietf:params:acme:error:badNonce`: the request is worth sending again with a fresh nonce.
    public var isBadNonce: Bool { type == "urn:ietf:params:acme:error:badNonce" }

    /// The type's last part and the detail, printable ASCII only, 200 characters at most: safe to log and store.
    public var summary: String {
        let kind = type.map { String($0.split(separator: ":").last ?? "") } ?? "error"
        let text = "\(kind): \(detail ?? "no detail")"
        return String(String.UnicodeScalarView(text.unicodeScalars.filter { (0x20...0x7E).contains($0.value) }.prefix(200)))
    }
}

/// An order's, authorization's or challenge's state (RFC 8555 §7.1.6).
public enum ACMEStatus: String, Decodable, Sendable {
    case pending, ready, processing, valid, invalid, expired, deactivated, revoked
}

public struct ACMEIdentifier: Codable, Sendable, Equatable {
    public var type: String
    public var value: String

    public static func dns(_ name: String) -> ACMEIdentifier { ACMEIdentifier(type: "dns", value: name) }
}

/// The directory: where each resource is.
public struct ACMEDirectory: Decodable, Sendable {
    public var newNonce: String
    public var newAccount: String
    public var newOrder: String
}

/// An account's answer: only its status matters (its URL comes in `Location`).
public struct ACMEAccountObject: Decodable, Sendable {
    public var status: ACMEStatus
}

public struct ACMEOrderObject: Decodable, Sendable {
    public var status: ACMEStatus
    public var identifiers: [ACMEIdentifier]
    public var authorizations: [String]
    public var finalize: String
    public var certificate: String?
    public var error: ACMEProblem?
}

public struct ACMEAuthorizationObject: Decodable, Sendable {
    public var status: ACMEStatus
    public var identifier: ACMEIdentifier
    public var challenges: [ACMEChallengeObject]
}

public struct ACMEChallengeObject: Decodable, Sendable {
    public var type: String
    public var url: String
    public var token: String?
    public var status: ACMEStatus
    public var error: ACMEProblem?
}
