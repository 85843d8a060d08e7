/// The shape of the configuration file: every key LinkDomain knows, with its type.
///
/// The loader checks the JSON file against this schema (so an unknown or misspelt key is an
/// error that names it) and derives the `LINKDOMAIN_*` environment variable names from it.
enum ConfigurationNode: Sendable {
    case string
    case integer
    case boolean
    case stringList
    case object([String: ConfigurationNode])
    /// A list of objects, each of the given shape; elements are addressed by index (`apple.apps.0.teamID`).
    case objectList([String: ConfigurationNode])

    var expectation: String {
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

enum ConfigurationSchema {
    static let appleApp: [String: ConfigurationNode] = [
        "teamID": .string,
        "bundleID": .string,
        "appStoreID": .string,
        "paths": .stringList,
        "webcredentials": .boolean,
        "appClip": .boolean,
    ]

    static let androidApp: [String: ConfigurationNode] = [
        "packageName": .string,
        "fingerprints": .stringList
    ]

    static let root: [String: ConfigurationNode] = [
        "publicBaseURL": .string,
        "pivotBaseURL": .string,
        "actionPath": .string,
        "publicDirectory": .string,
        "formSecret": .string,
        "server": .object([
            "host": .string,
            "port": .integer,
            "idleTimeoutSeconds": .integer,
            "forceDevelopmentMode": .boolean,
            "tls": .object([
                "certificatePath": .string,
                "privateKeyPath": .string,
            ]),
        ]),
        "apple": .object([
            "apps": .objectList(appleApp),
            "associationFile": .string,
        ]),
        "android": .object([
            "apps": .objectList(androidApp)
        ]),
        "authorizedDomains": .stringList,
        "backend": .object([
            "kind": .string,
            "projectID": .string,
            "apiKey": .string,
            "apiKeys": .stringList,
            "adminKeys": .stringList,
            "emailEnumerationProtection": .boolean,
            "codeLifetimeSeconds": .integer,
            "url": .string,
            "timeoutSeconds": .integer,
        ]),
        "limits": .object([
            "requestsPerMinute": .integer,
            "burst": .integer,
            "trustedProxies": .stringList,
        ]),
        "shortLinks": .object([
            "apiKeys": .stringList
        ]),
        "storage": .object([
            "sqlitePath": .string,
            "postgresURL": .string,
        ]),
    ]

    /// The prefix of every environment variable that overrides a key.
    static let environmentPrefix = "LINKDOMAIN"

    /// Environment variables with the prefix that are not configuration keys.
    static let environmentVariablesOutsideSchema: Set<String> = ["LINKDOMAIN_CONFIG"]

    /// The environment variable that overrides `path` (e.g. `apple.apps.0.teamID` → `LINKDOMAIN_APPLE_APPS_0_TEAM_ID`).
    ///
    /// Mirrors swift-configuration's environment key encoding: a lower-to-upper-case step in a
    /// component starts a new word, words are upper-cased, and components are joined by `_`.
    static func environmentVariable(for path: [String]) -> String {
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
