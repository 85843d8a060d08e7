import Foundation

/// How Identity Toolkit reads a request's fields, which its clients send loosely: numbers as
/// decimal strings, booleans as `"true"`, one string where a list is allowed, an empty string for
/// "not set", and fields of a type the operation does not expect (read as absent, as Google does,
/// never a decoding failure). Each request's `init(from:)` reads its fields through these.
extension KeyedDecodingContainer {
    /// The field as it was sent, or nil when absent, null or not JSON at all.
    package func value(_ key: Key) -> JSONValue? {
        switch (try? decodeIfPresent(JSONValue.self, forKey: key)) ?? nil {
        case nil, .null?: nil
        case let value?: value
        }
    }

    /// Whether the field was sent with a value (null counts as not sent).
    package func has(_ key: Key) -> Bool { value(key) != nil }

    /// A string field: a non-empty string, or a whole number written as a number.
    package func string(_ key: Key) -> String? {
        switch value(key) {
        case .string(let value)?: value.isEmpty ? nil : value
        case .integer(let value)?: String(value)
        default: nil
        }
    }

    /// The string as sent, empty included: `""` is a value a client chose, not an absent field.
    package func rawString(_ key: Key) -> String? {
        if case .string(let value)? = value(key) { return value }
        return nil
    }

    /// `true`/`false`, as a JSON boolean or as the string a form sends.
    package func bool(_ key: Key) -> Bool? {
        switch value(key) {
        case .boolean(let value)?: value
        case .string("true")?: true
        case .string("false")?: false
        default: nil
        }
    }

    /// A whole number sent as a JSON number or a decimal string; its range is the operation's to check.
    package func wholeNumber(_ key: Key) -> WholeNumber {
        switch value(key) {
        case nil: .absent
        case .integer(let integer)?: Int64(exactly: integer).map(WholeNumber.value) ?? .malformed
        case .string(let text)?: Int64(text).map(WholeNumber.value) ?? .malformed
        default: .malformed
        }
    }

    /// A list of strings, or one string where a list is allowed; other elements are left out.
    package func strings(_ key: Key) -> [String] {
        switch value(key) {
        case .string(let value)?: [value]
        case .list(let values)?: values.compactMap { if case .string(let value) = $0 { value } else { nil } }
        default: []
        }
    }

    /// A list of objects, each decoded as `Element` or nil (not an object, or not one `Element`
    /// reads): the operation decides what a bad entry means. Nil when the field is not a list.
    package func entries<Element: Decodable>(_ key: Key, of element: Element.Type) -> [Element?]? {
        guard let list = try? decodeIfPresent([Entry<Element>].self, forKey: key) else { return nil }
        return list.map(\.value)
    }
}

/// One element of a list whose elements may each be malformed, without failing the list.
private struct Entry<Element: Decodable>: Decodable {
    let value: Element?

    init(from decoder: any Decoder) throws {
        value = try? Element(from: decoder)
    }
}

/// A whole-number field as sent: absent, a value, or something that is not a whole number.
package enum WholeNumber: Sendable, Equatable {
    case absent
    case value(Int64)
    case malformed

    /// The value if sent; `error` when it is not a whole number within `range`.
    package func within(_ range: ClosedRange<Int64>, else error: IdentityToolkitError) throws(IdentityToolkitError) -> Int64? {
        switch self {
        case .absent: return nil
        case .value(let value) where range.contains(value): return value
        case .value, .malformed: throw error
        }
    }
}

extension JSONValue {
    /// The value as JSON text: a string's content, or an object written out (`customAttributes`
    /// comes as either); nil for anything else.
    package var jsonText: String? {
        switch self {
        case .string(let value): return value
        case .object:
            guard let data = try? JSONEncoder().encode(self) else { return nil }
            return String(decoding: data, as: UTF8.self)
        default: return nil
        }
    }
}

/// A field an update may set, clear or leave alone: absent keeps it; sent, it replaces it (an
/// empty or unusable value clears it).
package enum FieldUpdate<Value: Sendable & Equatable>: Sendable, Equatable {
    case keep
    case replace(with: Value?)

    package func applied(to current: Value?) -> Value? {
        switch self {
        case .keep: current
        case .replace(let value): value
        }
    }
}

extension KeyedDecodingContainer {
    /// A string an update may set or clear (``FieldUpdate``).
    package func stringUpdate(_ key: Key) -> FieldUpdate<String> {
        has(key) ? .replace(with: string(key)) : .keep
    }
}
