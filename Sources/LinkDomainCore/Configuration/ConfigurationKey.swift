import Foundation
/// One configuration key: where it lives in the file, what it holds, its default, whether it is a
/// secret, and what it means. ``ConfigurationKeys/all`` lists every key once; the file's schema,
/// the environment variable names, reading, validation and the configuration reference's table (docs/configuration.md) all come from it.
package struct ConfigurationKey: Sendable {
    /// What the key holds, as the file and the environment spell it.
    package enum ValueType: Sendable, Equatable {
        case string
        /// A file or directory; relative paths resolve against the configuration file's directory.
        case path
        case url
        case integer(ClosedRange<Int>)
        case boolean
        case stringList

        package var schemaNode: ConfigurationNode {
            switch self {
            case .string, .path, .url: .string
            case .integer: .integer
            case .boolean: .boolean
            case .stringList: .stringList
            }
        }

        /// How the configuration reference names the type.
        package var documentedName: String {
            switch self {
            case .string: "string"
            case .path: "path"
            case .url: "URL"
            case .integer: "integer"
            case .boolean: "boolean"
            case .stringList: "list of strings"
            }
        }
    }

    /// The value used when the key is absent.
    package enum Default: Sendable, Equatable {
        case none
        /// The key must be present (in each list element that has it).
        case required
        case integer(Int)
        case boolean(Bool)
        case string(String)
        case emptyList
        /// Worked out from other keys or at start; the text says how.
        case described(String)

        package var documented: String {
            switch self {
            case .none: "none"
            case .required: "required"
            case .integer(let value): "`\(value)`"
            case .boolean(let value): "`\(value)`"
            case .string(let value): "`\(value)`"
            case .emptyList: "`[]`"
            case .described(let text): text
            }
        }
    }

    /// The dotted path, with `[i]` where a list of objects is indexed: `apple.apps[i].teamID`.
    package let name: String
    package let type: ValueType
    package let defaultValue: Default
    /// What a valid value looks like, as problems say it.
    package let expected: String
    /// A secret is never printed: not in problems, not in the start-up summary, not in logs.
    package let isSecret: Bool
    /// The configuration reference's description.
    package let summary: String
    /// Checks a string (or each string of a list) and returns it normalised, or nil when invalid.
    package let validate: (@Sendable (String) -> String?)?

    package init(
        _ name: String, _ type: ValueType, default defaultValue: Default = .none, secret: Bool = false, expected: String = "",
        validate: (@Sendable (String) -> String?)? = nil, _ summary: String
    ) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.isSecret = secret
        self.expected = expected.isEmpty ? Self.expectation(type) : expected
        self.validate = validate
        self.summary = summary
    }

    package static func expectation(_ type: ValueType) -> String {
        switch type {
        case .integer(let range): "\(range.lowerBound) to \(range.upperBound)"
        default: type.schemaNode.expectation
        }
    }

    /// The path's components; `index` fills the `[i]` of a list element's key.
    package func path(index: Int? = nil) -> [String] {
        name.split(separator: ".").flatMap { component -> [String] in
            guard component.hasSuffix("[i]") else { return [String(component)] }
            return [String(component.dropLast(3)), index.map(String.init) ?? "i"]
        }
    }

    /// The list of objects this key's elements belong to (`apple.apps`), if any.
    package var list: [String]? {
        guard name.contains("[i]") else { return nil }
        let path = self.path()
        return path.firstIndex(of: "i").map { Array(path[..<$0]) }
    }

    /// The environment variable that overrides the key, `i` standing for the index.
    package var environmentVariable: String { ConfigurationSchema.environmentVariable(for: path()).replacingOccurrences(of: "_I_", with: "_i_") }

    /// The key's row in the configuration table of docs/configuration.md.
    package var documentationRow: String {
        "| `\(name)` | `\(environmentVariable)` | \(type.documentedName), \(defaultValue.documented) | \(isSecret ? "**Secret.** " : "")\(summary) |"
    }
}
