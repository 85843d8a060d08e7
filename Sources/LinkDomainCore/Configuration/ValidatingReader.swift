import Configuration
import Foundation

/// Reads each configuration key through swift-configuration's layered providers and validates it,
/// recording a ``ConfigurationProblem`` that names the key's own source for everything wrong.
package struct ValidatingReader {
    package let fileSource: String
    package let fileValues: [AbsoluteConfigKey: ConfigValue]
    package let fileListCounts: [[String]: Int]
    package let environment: [String: String]
    package let overrides: [String: ConfigValue]
    package let checkTLSFiles: TLSFilesCheck
    package let reader: ConfigReader
    /// How many elements each list of objects has: the file's count, extended by indexed environment variables.
    package let listCounts: [[String]: Int]
    package var problems: [ConfigurationProblem] = []

    package init(
        fileSource: String,
        fileValues: [AbsoluteConfigKey: ConfigValue],
        fileListCounts: [[String]: Int],
        environment: [String: String],
        overrides: [String: ConfigValue],
        checkTLSFiles: @escaping TLSFilesCheck
    ) {
        self.checkTLSFiles = checkTLSFiles
        self.fileSource = fileSource
        self.fileValues = fileValues
        self.fileListCounts = fileListCounts
        self.environment = environment
        self.overrides = overrides
        var overrideValues: [AbsoluteConfigKey: ConfigValue] = [:]
        for (key, value) in overrides {
            overrideValues[AbsoluteConfigKey(["linkdomain"] + key.split(separator: ".").map(String.init))] = value
        }
        self.reader = ConfigReader(providers: [
            InMemoryProvider(name: "command line", values: overrideValues),
            EnvironmentVariablesProvider(environmentVariables: environment),
            InMemoryProvider(name: fileSource, values: fileValues),
        ]).scoped(to: "linkdomain")

        var counts = fileListCounts
        for (path, _) in Self.objectLists(in: ConfigurationSchema.root, path: []) {
            let prefix = ConfigurationSchema.environmentVariable(for: path) + "_"
            for name in environment.keys where name.hasPrefix(prefix) {
                let index = name.dropFirst(prefix.count).prefix(while: \.isNumber)
                if let index = Int(index), index < 1000 {
                    counts[path] = max(counts[path] ?? 0, index + 1)
                }
            }
        }
        self.listCounts = counts
    }

    // MARK: Typed access, by key

    /// The raw string at `key` (of list element `index`), or nil when absent or not a string.
    package mutating func string(_ key: ConfigurationKey, index: Int? = nil) -> String? {
        let path = key.path(index: index)
        guard let value = reader.string(forKey: ConfigKey(path)) else {
            reportTypeMismatch(path, expected: "a string")
            return nil
        }
        return value
    }

    /// The value of a string key after its validator: nil when absent or invalid (reported,
    /// without the value when the key is secret).
    package mutating func validated(_ key: ConfigurationKey, index: Int? = nil) -> String? {
        guard let value = string(key, index: index) else {
            if key.defaultValue == .required, reader.string(forKey: ConfigKey(key.path(index: index))) == nil {
                report(key.path(index: index), problem: "is missing", expected: key.expected)
            }
            return nil
        }
        guard let validate = key.validate else { return value }
        guard let valid = validate(value) else {
            report(
                key.path(index: index), problem: key.isSecret ? "is not valid (the value is secret and not shown)" : "\"\(value)\" is not valid",
                expected: key.expected)
            return nil
        }
        return valid
    }

    /// The integer at `key`, or its default when absent, or out of its range (reported).
    package mutating func integer(_ key: ConfigurationKey) -> Int {
        let fallback = if case .integer(let value) = key.defaultValue { value } else { 0 }
        return optionalInteger(key) ?? fallback
    }

    /// The integer at `key` when present (out of its range: reported, nil).
    package mutating func optionalInteger(_ key: ConfigurationKey) -> Int? {
        let path = key.path()
        guard let value = reader.int(forKey: ConfigKey(path)) else {
            reportTypeMismatch(path, expected: "an integer")
            return nil
        }
        guard case .integer(let range) = key.type, range.contains(value) else {
            report(path, problem: "\(value) is out of range", expected: key.expected)
            return nil
        }
        return value
    }

    /// Whether `key` has a value of any kind (a string, a list).
    package func isPresent(_ key: ConfigurationKey) -> Bool {
        let path = ConfigKey(key.path())
        return reader.string(forKey: path) != nil || reader.stringArray(forKey: path) != nil
    }

    /// The boolean at `key`, or its default.
    package mutating func boolean(_ key: ConfigurationKey, index: Int? = nil) -> Bool {
        let fallback = if case .boolean(let value) = key.defaultValue { value } else { false }
        let path = key.path(index: index)
        guard let value = reader.bool(forKey: ConfigKey(path)) else {
            reportTypeMismatch(path, expected: "true or false")
            return fallback
        }
        return value
    }

    /// The list at `key` (blank elements dropped), each element through the key's validator; nil when absent.
    package mutating func list(_ key: ConfigurationKey, index: Int? = nil) -> [String]? {
        let path = key.path(index: index)
        guard let raw = reader.stringArray(forKey: ConfigKey(path)) else {
            reportTypeMismatch(path, expected: "a list of strings")
            if key.defaultValue == .required { report(path, problem: "is missing", expected: key.expected) }
            return nil
        }
        let values = raw.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard let validate = key.validate else { return values }
        var result: [String] = []
        for (element, value) in values.enumerated() {
            if let valid = validate(value) {
                result.append(valid)
            } else {
                report(
                    path, problem: key.isSecret ? "element \(element) is not valid" : "element \(element), \"\(value)\", is not valid",
                    expected: key.expected)
            }
        }
        return result
    }

    /// A path key, resolved against the configuration file's directory.
    package mutating func path(_ key: ConfigurationKey, baseDirectory: String?) -> String? {
        string(key).map { Self.resolve($0, against: baseDirectory) }
    }

    /// Relative paths in a configuration file are relative to that file.
    package static func resolve(_ path: String, against baseDirectory: String?) -> String {
        guard !path.hasPrefix("/"), let baseDirectory else { return path }
        return URL(fileURLWithPath: baseDirectory).appendingPathComponent(path).standardizedFileURL.path
    }

    /// A value that is present but could not be read as its type (only environment variables and
    /// overrides can get here: the file's types were checked against the schema).
    private mutating func reportTypeMismatch(_ path: [String], expected: String) {
        let name = ConfigurationSchema.environmentVariable(for: path)
        if let raw = environment[name], overrides[path.joined(separator: ".")] == nil {
            problems.append(.init(source: "environment", key: name, problem: "\"\(raw)\" is not \(expected)", expected: expected))
        }
    }

    // MARK: Problems

    /// Records a problem against the source that actually supplied `path`'s value.
    package mutating func report(_ path: [String], problem: String, expected: String) {
        let dotted = path.joined(separator: ".")
        let environmentName = ConfigurationSchema.environmentVariable(for: path)
        if overrides[dotted] != nil {
            problems.append(.init(source: "command line", key: dotted, problem: problem, expected: expected))
        } else if environment[environmentName] != nil || !isInFile(path) {
            problems.append(.init(source: "environment", key: environmentName, problem: problem, expected: expected))
        } else {
            problems.append(.init(source: fileSource, key: SchemaFlattener.display(path), problem: problem, expected: expected))
        }
    }

    /// Whether `path` belongs to the file: false for a field of a list element that only the environment adds.
    private func isInFile(_ path: [String]) -> Bool {
        for end in path.indices {
            if let index = Int(path[end]), end > 0, index >= (fileListCounts[Array(path[..<end])] ?? 0) { return false }
        }
        return true
    }

    /// A `LINKDOMAIN_*` variable that no key maps to is almost always a typo: say so rather than ignore it.
    package mutating func reportUnknownEnvironmentVariables() {
        var known = ConfigurationSchema.environmentVariablesOutsideSchema
        Self.collectEnvironmentNames(ConfigurationSchema.root, path: [], counts: listCounts, into: &known)
        let prefix = ConfigurationSchema.environmentPrefix + "_"
        for name in environment.keys.sorted() where name.hasPrefix(prefix) && !known.contains(name) {
            problems.append(
                .init(
                    source: "environment", key: name, problem: "is not a configuration key",
                    expected: "a documented LINKDOMAIN_* variable (see docs/configuration.md)"))
        }
    }

    private static func collectEnvironmentNames(
        _ schema: [String: ConfigurationNode], path: [String], counts: [[String]: Int], into names: inout Set<String>
    ) {
        for (name, node) in schema {
            let keyPath = path + [name]
            switch node {
            case .object(let inner):
                collectEnvironmentNames(inner, path: keyPath, counts: counts, into: &names)
            case .objectList(let inner):
                for index in 0..<(counts[keyPath] ?? 0) {
                    collectEnvironmentNames(inner, path: keyPath + [String(index)], counts: counts, into: &names)
                }
            default:
                names.insert(ConfigurationSchema.environmentVariable(for: keyPath))
            }
        }
    }

    private static func objectLists(in schema: [String: ConfigurationNode], path: [String]) -> [([String], [String: ConfigurationNode])] {
        schema.flatMap { name, node -> [([String], [String: ConfigurationNode])] in
            switch node {
            case .object(let inner): objectLists(in: inner, path: path + [name])
            case .objectList(let inner): [(path + [name], inner)]
            default: []
            }
        }
    }
}
