import Configuration
import Foundation

/// Loads a ``LinkDomainConfiguration`` from a JSON file, `LINKDOMAIN_*` environment variables and
/// command-line overrides (highest precedence first: command line, environment, file), and
/// validates it strictly, collecting every problem before failing.
public struct ConfigurationLoader: Sendable {
    /// Values given on the command line, by configuration key (`server.port`).
    public var overrides: [String: ConfigValue]
    public var environment: [String: String]
    /// Reads `server.tls`'s files as the server will (``TLSFilesCheck``).
    public var checkTLSFiles: TLSFilesCheck

    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment, overrides: [String: ConfigValue] = [:],
        checkTLSFiles: @escaping TLSFilesCheck
    ) {
        self.environment = environment
        self.overrides = overrides
        self.checkTLSFiles = checkTLSFiles
    }

    /// Every key as a Markdown table (key, environment variable, type and default, meaning): the
    /// the configuration table of docs/configuration.md, and `linkdomain keys`.
    public static var keyTable: String { ConfigurationKeys.documentationTable }

    /// The configuration file to use: the one named, else `LINKDOMAIN_CONFIG`, else `linkdomain.json`
    /// in the working directory when there is one, else none.
    public func configurationFilePath(explicit: String?) -> String? {
        if let explicit { return explicit }
        if let fromEnvironment = environment["LINKDOMAIN_CONFIG"], !fromEnvironment.isEmpty { return fromEnvironment }
        return FileManager.default.fileExists(atPath: "linkdomain.json") ? "linkdomain.json" : nil
    }

    /// Loads the file at `path` (if any) under the environment and overrides.
    public func load(path: String?) throws(ConfigurationError) -> LinkDomainConfiguration {
        guard let path else { return try load(json: nil, source: "(no file)", baseDirectory: nil) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(problems: [
                .init(source: path, key: "(file)", problem: "cannot be read", expected: "a readable JSON file")
            ])
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return try load(json: data, source: path, baseDirectory: directory)
    }

    /// Loads configuration from JSON bytes; `source` names them in problems, and relative file
    /// paths inside resolve against `baseDirectory` (the working directory when nil).
    public func load(json: Data?, source: String, baseDirectory: String?) throws(ConfigurationError)
        -> LinkDomainConfiguration
    {
        var flattener = SchemaFlattener(source: source)
        if let json {
            flattener.flatten(json)
        }
        var reader = ValidatingReader(
            fileSource: source,
            fileValues: flattener.values,
            fileListCounts: flattener.listCounts,
            environment: environment,
            overrides: overrides,
            checkTLSFiles: checkTLSFiles
        )
        reader.problems = flattener.problems
        reader.reportUnknownEnvironmentVariables()
        let configuration = reader.readConfiguration(baseDirectory: baseDirectory)
        guard reader.problems.isEmpty, let configuration else {
            throw ConfigurationError(problems: reader.problems)
        }
        return configuration
    }
}

/// Checks a configuration file against ``ConfigurationSchema`` and flattens it into the dotted keys
/// swift-configuration reads (`apple.apps.0.teamID`).
package struct SchemaFlattener {
    package let source: String
    package var values: [AbsoluteConfigKey: ConfigValue] = [:]
    package var listCounts: [[String]: Int] = [:]
    package var problems: [ConfigurationProblem] = []

    package init(source: String) {
        self.source = source
    }

    package mutating func flatten(_ data: Data) {
        let root: JSONValue
        do {
            root = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            problems.append(
                .init(
                    source: source, key: "(file)", problem: "is not valid JSON (\(Self.describe(error)))",
                    expected: "a JSON object"))
            return
        }
        guard case .object(let members) = root else {
            problems.append(.init(source: source, key: "(file)", problem: "holds \(root.typeName)", expected: "a JSON object"))
            return
        }
        flatten(members, schema: ConfigurationSchema.root, path: [])
    }

    private mutating func flatten(_ members: [String: JSONValue], schema: [String: ConfigurationNode], path: [String]) {
        for (name, value) in members.sorted(by: { $0.key < $1.key }) {
            let keyPath = path + [name]
            guard let node = schema[name] else {
                let known = schema.keys.sorted().joined(separator: ", ")
                problems.append(
                    .init(
                        source: source, key: Self.display(keyPath), problem: "unknown key",
                        expected: "one of: \(known)"))
                continue
            }
            flatten(value, node: node, path: keyPath)
        }
    }

    private mutating func flatten(_ value: JSONValue, node: ConfigurationNode, path: [String]) {
        let key = AbsoluteConfigKey(["linkdomain"] + path)
        switch (node, value) {
        case (_, .null):
            break  // an explicit null means "not set"
        case (.string, .string(let string)):
            values[key] = ConfigValue(.string(string), isSecret: false)
        case (.integer, .integer(let integer)):
            values[key] = ConfigValue(.int(integer), isSecret: false)
        case (.boolean, .boolean(let boolean)):
            values[key] = ConfigValue(.bool(boolean), isSecret: false)
        case (.stringList, .list(let elements)):
            var strings: [String] = []
            for (index, element) in elements.enumerated() {
                guard case .string(let string) = element else {
                    mismatch(path + [String(index)], found: element, expected: "a string")
                    continue
                }
                strings.append(string)
            }
            values[key] = ConfigValue(.stringArray(strings), isSecret: false)
        case (.object(let schema), .object(let members)):
            flatten(members, schema: schema, path: path)
        case (.objectList(let schema), .list(let elements)):
            listCounts[path] = elements.count
            for (index, element) in elements.enumerated() {
                guard case .object(let members) = element else {
                    mismatch(path + [String(index)], found: element, expected: "an object")
                    continue
                }
                flatten(members, schema: schema, path: path + [String(index)])
            }
        default:
            mismatch(path, found: value, expected: node.expectation)
        }
    }

    private mutating func mismatch(_ path: [String], found: JSONValue, expected: String) {
        problems.append(.init(source: source, key: Self.display(path), problem: "is \(found.typeName)", expected: expected))
    }

    /// `apple.apps.0.teamID` as a person reads it: `apple.apps[0].teamID`.
    package static func display(_ path: [String]) -> String {
        var result = ""
        for component in path {
            if component.allSatisfy(\.isNumber) {
                result += "[\(component)]"
            } else {
                result += result.isEmpty ? component : ".\(component)"
            }
        }
        return result
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context):
            (context.underlyingError.map { "\($0.localizedDescription)" }) ?? context.debugDescription
        default:
            "\(error)"
        }
    }
}
