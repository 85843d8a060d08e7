/// A node of the configuration file's shape: a value of a type, an object, or a list of objects.
///
/// The loader checks the JSON file against this schema (so an unknown or misspelt key is an
/// error that names it) and derives the `LINKDOMAIN_*` environment variable names from it.
package enum ConfigurationNode: Sendable {
    case string
    case integer
    case boolean
    case stringList
    case object([String: ConfigurationNode])
    /// A list of objects, each of the given shape; elements are addressed by index (`apple.apps.0.teamID`).
    case objectList([String: ConfigurationNode])

    package var expectation: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .boolean: "true or false"
        case .stringList: "a list of strings"
        case .object: "an object"
        case .objectList: "a list of objects"
        }
    }
}

package enum ConfigurationSchema {
    /// The file's shape, derived from ``ConfigurationKeys/all``: objects for dotted components,
    /// lists of objects for `[i]`.
    package static let root: [String: ConfigurationNode] = {
        var root: [String: ConfigurationNode] = [:]
        for key in ConfigurationKeys.all { insert(key.type.schemaNode, at: key.name.split(separator: ".").map(String.init)[...], into: &root) }
        return root
    }()

    private static func insert(_ leaf: ConfigurationNode, at path: ArraySlice<String>, into object: inout [String: ConfigurationNode]) {
        guard let first = path.first else { return }
        let rest = path.dropFirst()
        if rest.isEmpty {
            object[first] = leaf
        } else if first.hasSuffix("[i]") {
            let name = String(first.dropLast(3))
            var element: [String: ConfigurationNode] = if case .objectList(let inner)? = object[name] { inner } else { [:] }
            insert(leaf, at: rest, into: &element)
            object[name] = .objectList(element)
        } else {
            var inner: [String: ConfigurationNode] = if case .object(let inner)? = object[first] { inner } else { [:] }
            insert(leaf, at: rest, into: &inner)
            object[first] = .object(inner)
        }
    }

    /// The prefix of every environment variable that overrides a key.
    package static let environmentPrefix = "LINKDOMAIN"

    /// Environment variables with the prefix that are not configuration keys.
    package static let environmentVariablesOutsideSchema: Set<String> = ["LINKDOMAIN_CONFIG"]

    /// The environment variable that overrides `path` (e.g. `apple.apps.0.teamID` → `LINKDOMAIN_APPLE_APPS_0_TEAM_ID`).
    ///
    /// Mirrors swift-configuration's environment key encoding: a lower-to-upper-case step in a
    /// component starts a new word, words are upper-cased, and components are joined by `_`.
    package static func environmentVariable(for path: [String]) -> String {
        ([environmentPrefix] + path).map { component in
            var encoded = ""
            var previous: Character?
            for character in component {
                if let previous, previous.isLowercase, character.isUppercase { encoded.append("_") }
                encoded.append(character.isLetter || character.isNumber ? character : "_")
                previous = character
            }
            return encoded.uppercased()
        }.joined(separator: "_")
    }
}
