import Foundation

/// A JSON request body with typed, lenient accessors: Identity Toolkit requests carry many
/// optional fields, and clients send numbers as strings and single values where lists are allowed.
package struct RequestBody: Sendable {
    var fields: [String: JSONValue]

    package init(_ fields: [String: JSONValue] = [:]) {
        self.fields = fields
    }

    func string(_ name: String) -> String? {
        switch fields[name] {
        case .string(let value)?: value.isEmpty ? nil : value
        case .integer(let value)?: String(value)
        default: nil
        }
    }

    /// The string as sent, empty included: `""` is a value a client chose, not an absent field.
    func rawString(_ name: String) -> String? {
        if case .string(let value)? = fields[name] { return value }
        return nil
    }

    /// A field as JSON text (a JSON string's content, or an object written out), for `customAttributes`.
    func jsonText(_ name: String) -> String? {
        switch fields[name] {
        case .string(let value)?: return value
        case .object?:
            guard let value = fields[name], let data = try? JSONEncoder().encode(value) else { return nil }
            return String(decoding: data, as: UTF8.self)
        default: return nil
        }
    }

    func bool(_ name: String) -> Bool? {
        switch fields[name] {
        case .boolean(let value)?: value
        case .string("true")?: true
        case .string("false")?: false
        default: nil
        }
    }

    /// A whole number within `range`, sent as a JSON number or a decimal string; `error` otherwise.
    func integer(_ name: String, in range: ClosedRange<Int64>, error: IdentityToolkitError) throws(IdentityToolkitError) -> Int64? {
        let value: Int64?
        switch fields[name] {
        case nil, .null?: return nil
        case .integer(let integer)?: value = Int64(exactly: integer)
        case .string(let text)?: value = Int64(text)
        default: value = nil
        }
        guard let value, range.contains(value) else { throw error }
        return value
    }

    func strings(_ name: String) -> [String] {
        switch fields[name] {
        case .string(let value)?: [value]
        case .list(let values)?: values.compactMap { if case .string(let value) = $0 { value } else { nil } }
        default: []
        }
    }

    func has(_ name: String) -> Bool { fields[name] != nil && fields[name] != .null }
}
