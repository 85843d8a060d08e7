import Foundation

/// Any JSON value: configuration files, hand-written association files and Identity Toolkit
/// request and response bodies, which carry many optional fields of several types.
package enum JSONValue: Codable, Sendable, Equatable {
    case string(String), integer(Int), boolean(Bool), number(Double), null
    case list([JSONValue]), object([String: JSONValue])

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .boolean(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .list(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    package var typeName: String {
        switch self {
        case .string: "a string"
        case .integer, .number: "a number"
        case .boolean: "a boolean"
        case .null: "null"
        case .list: "a list"
        case .object: "an object"
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .boolean(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .list(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
