import Configuration
import Foundation

/// Reads each configuration key through swift-configuration's layered providers and validates it,
/// recording a ``ConfigurationProblem`` that names the key's own source for everything wrong.
struct ValidatingReader {
    let fileSource: String
    let fileValues: [AbsoluteConfigKey: ConfigValue]
    let fileListCounts: [[String]: Int]
    let environment: [String: String]
    let overrides: [String: ConfigValue]
    let reader: ConfigReader
    /// How many elements each list of objects has: the file's count, extended by indexed environment variables.
    let listCounts: [[String]: Int]
    var problems: [ConfigurationProblem] = []

    init(
        fileSource: String,
        fileValues: [AbsoluteConfigKey: ConfigValue],
        fileListCounts: [[String]: Int],
        environment: [String: String],
        overrides: [String: ConfigValue]
    ) {
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

    // MARK: Reading the configuration

    mutating func readConfiguration(baseDirectory: String?) -> LinkDomainConfiguration? {
        let host = string(["server", "host"]) ?? "127.0.0.1"
        let port = integer(["server", "port"], in: 0...65535, default: 8080, expected: "a TCP port from 0 to 65535")
        let idleTimeout = integer(["server", "idleTimeoutSeconds"], in: 1...3600, default: 30, expected: "1 to 3600 seconds")
        let tls = readTLSFiles(baseDirectory: baseDirectory)
        let defaultBaseURL = "\(tls == nil ? "http" : "https")://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        let publicBaseURL =
            validated(["publicBaseURL"], ConfigurationValidators.publicBaseURL,
                      expected: "an https:// origin such as \"https://links.example.com\" (http:// only for localhost), with no path")
            ?? defaultBaseURL

        let appleApps = (0..<(listCounts[["apple", "apps"]] ?? 0)).compactMap { readAppleApp(index: $0) }
        let androidApps = (0..<(listCounts[["android", "apps"]] ?? 0)).compactMap { readAndroidApp(index: $0) }
        reportDuplicates(appleApps.map(\.appID), list: ["apple", "apps"], field: "bundleID", what: "app ID")
        reportDuplicates(androidApps.map(\.packageName), list: ["android", "apps"], field: "packageName", what: "package name")

        let pivotBaseURL = validated(["pivotBaseURL"], ConfigurationValidators.publicBaseURL,
                                     expected: "an https:// origin on a second host, such as \"https://open.example.com\", with no path")
        let actionPath = validated(["actionPath"], ConfigurationValidators.actionPath,
                                   expected: "a path such as \"/auth/action\": starts with /, letters, digits, '-', '_', '/' and '.' only")
        let publicDirectory = string(["publicDirectory"]).map { resolve($0, against: baseDirectory) }
        if let publicDirectory, let problem = PageAssets.problem(inDirectory: publicDirectory) {
            report(["publicDirectory"], problem: problem, expected: "a directory holding templates/*.mustache, locales/*.json and static/styles.css, or no key (the built-in pages)")
        }
        let formSecret = string(["formSecret"])
        if let formSecret, formSecret.utf8.count < 32 {
            report(["formSecret"], problem: "is \(formSecret.utf8.count) characters long", expected: "at least 32 random characters")
        }
        let backendURL = validated(["backend", "url"], ConfigurationValidators.backendURL,
                                   expected: "an http(s) URL such as \"http://127.0.0.1:9099\" (emulator) or \"https://identitytoolkit.googleapis.com\"")
        let backendTimeout = integer(["backend", "timeoutSeconds"], in: 1...120, default: 10, expected: "1 to 120 seconds")
        let postgresURL = validated(["storage", "postgresURL"], ConfigurationValidators.postgresURL,
                                    expected: "a URL such as \"postgres://linkdomain:secret@127.0.0.1:5432/linkdomain\"")
        let requestsPerMinute = integer(["limits", "requestsPerMinute"], in: 1...1_000_000, default: 120, expected: "1 to 1000000")
        let burst = integer(["limits", "burst"], in: 1...1_000_000, default: 30, expected: "1 to 1000000")
        let trustedProxies = stringList(["limits", "trustedProxies"]) ?? []
        let shortLinkAPIKeys = stringList(["shortLinks", "apiKeys"]) ?? []
        for (index, key) in shortLinkAPIKeys.enumerated() where key.utf8.count < 16 {
            report(["shortLinks", "apiKeys"], problem: "key \(index) is \(key.utf8.count) characters long", expected: "keys of at least 16 random characters")
        }
        let associationFile = string(["apple", "associationFile"]).map { resolve($0, against: baseDirectory) }
        let sqlitePath = resolve(string(["storage", "sqlitePath"]) ?? "linkdomain.sqlite", against: baseDirectory)
        let projectID = validated(["backend", "projectID"], ConfigurationValidators.projectID,
                                  expected: "a project ID: 4 to 30 lower-case letters, digits or '-', starting with a letter")
            ?? "demo-linkdomain"
        let explicitAPIKey = string(["backend", "apiKey"])
        let listedAPIKeys = stringList(["backend", "apiKeys"]) ?? []
        let clientAPIKeys = (explicitAPIKey.map { [$0] } ?? []) + listedAPIKeys
        let apiKey = explicitAPIKey ?? listedAPIKeys.first ?? "demo-api-key"
        let adminKeys = stringList(["backend", "adminKeys"]) ?? []
        for (index, key) in adminKeys.enumerated() where key.utf8.count < 32 {
            // The key itself is a secret: say only how long it is.
            report(["backend", "adminKeys"], problem: "key \(index) is \(key.utf8.count) characters long",
                   expected: "admin keys of at least 32 random characters (openssl rand -hex 32)")
        }
        let forceDevelopment = boolean(["server", "forceDevelopmentMode"]) ?? false
        let enumerationProtection = boolean(["backend", "emailEnumerationProtection"]) ?? true
        let codeLifetime = integer(["backend", "codeLifetimeSeconds"], in: 60...604_800, default: 3600,
                                   expected: "60 to 604800 seconds (a week)")

        let domains = validatedList(["authorizedDomains"], ConfigurationValidators.hostName,
                                    expected: "host names such as \"example.com\" (internationalised names in xn-- form)")
        let backendName = string(["backend", "kind"]) ?? BackendKind.embedded.rawValue
        let backend = BackendKind(rawValue: backendName)
        if backend == nil {
            report(["backend", "kind"], problem: "\"\(backendName)\" is not a backend",
                   expected: "one of: " + BackendKind.allCases.map(\.rawValue).joined(separator: ", "))
        }
        // Built even when something is wrong, so that the deployment checks below report alongside the rest.
        guard let backend else { return nil }
        var configuration = LinkDomainConfiguration(
            publicBaseURL: publicBaseURL, host: host, port: port,
            appleApps: appleApps, appleAssociationFile: associationFile, androidApps: androidApps,
            authorizedDomains: domains, backend: backend, projectID: projectID, apiKey: apiKey,
            emailEnumerationProtection: enumerationProtection, codeLifetimeSeconds: codeLifetime, sqlitePath: sqlitePath,
            pivotBaseURL: pivotBaseURL, actionPath: actionPath, publicDirectory: publicDirectory, formSecret: formSecret,
            backendURL: backendURL, backendTimeoutSeconds: backendTimeout, shortLinkAPIKeys: shortLinkAPIKeys,
            postgresURL: postgresURL, requestsPerMinute: requestsPerMinute, burst: burst, trustedProxies: trustedProxies,
            tls: tls, idleTimeoutSeconds: idleTimeout,
            clientAPIKeys: clientAPIKeys, adminKeys: adminKeys, forceDevelopmentMode: forceDevelopment
        )
        configuration.publicDirectory = publicDirectory
        reportMissingDeploymentKeys(configuration)
        return problems.isEmpty ? configuration : nil
    }

    /// A deployment serving the embedded backend must say who may call it: the emulator's "any key,
    /// `Bearer owner`" would hand every account to anyone who finds the host.
    private mutating func reportMissingDeploymentKeys(_ configuration: LinkDomainConfiguration) {
        guard configuration.backend == .embedded, configuration.mode == .deployment else { return }
        let why = "this is a deployment (publicBaseURL \(configuration.publicBaseURL), bound to \(configuration.host)), "
            + "where the embedded backend takes only configured keys"
        if configuration.clientAPIKeys.isEmpty {
            report(["backend", "apiKeys"], problem: "is missing: \(why)",
                   expected: "the API keys your apps send (backend.apiKeys, or backend.apiKey)")
        }
        if configuration.adminKeys.isEmpty {
            report(["backend", "adminKeys"], problem: "is missing: \(why)",
                   expected: "one or more secret admin keys of 32+ characters for Authorization: Bearer (openssl rand -hex 32)")
        }
    }

    /// Relative paths in a configuration file are relative to that file.
    private func resolve(_ path: String, against baseDirectory: String?) -> String {
        guard !path.hasPrefix("/"), let baseDirectory else { return path }
        return URL(fileURLWithPath: baseDirectory).appendingPathComponent(path).standardizedFileURL.path
    }

    /// Both TLS files or neither; each must hold what its key says, so a bad file stops the start, not the first handshake.
    private mutating func readTLSFiles(baseDirectory: String?) -> TLSFiles? {
        let certificatePath = string(["server", "tls", "certificatePath"]).map { resolve($0, against: baseDirectory) }
        let keyPath = string(["server", "tls", "privateKeyPath"]).map { resolve($0, against: baseDirectory) }
        switch (certificatePath, keyPath) {
        case (nil, nil):
            return nil
        case (nil, _?):
            report(["server", "tls", "certificatePath"], problem: "is missing", expected: "a PEM certificate chain file, with server.tls.privateKeyPath")
            return nil
        case (_?, nil):
            report(["server", "tls", "privateKeyPath"], problem: "is missing", expected: "a PEM private key file, with server.tls.certificatePath")
            return nil
        case (let certificatePath?, let keyPath?):
            let files = TLSFiles(certificatePath: certificatePath, privateKeyPath: keyPath)
            do {
                _ = try CertificateStore.Material(files: files)
            } catch {
                switch error {
                case .certificate(let reason):
                    report(["server", "tls", "certificatePath"], problem: reason, expected: "a readable PEM file, the server's certificate first")
                case .privateKey(let reason):
                    report(["server", "tls", "privateKeyPath"], problem: reason, expected: "a readable PEM private key that matches the certificate")
                }
                return nil
            }
            return files
        }
    }

    private mutating func readAppleApp(index: Int) -> AppleApp? {
        let path = ["apple", "apps", String(index)]
        let teamID = required(path + ["teamID"], ConfigurationValidators.teamID,
                              expected: "10 upper-case letters or digits, such as \"ABCDE12345\"")
        let bundleID = required(path + ["bundleID"], ConfigurationValidators.bundleID,
                                expected: "a bundle ID such as \"com.example.app\" (letters, digits, '-' and '.')")
        let appStoreID = validated(path + ["appStoreID"], ConfigurationValidators.appStoreID,
                                   expected: "the App Store ID's digits, such as \"1234567890\"")
        let paths = validatedList(path + ["paths"], ConfigurationValidators.pathPattern,
                                  expected: "path patterns such as \"/open/*\" or \"NOT /private/*\"")
        let webcredentials = boolean(path + ["webcredentials"]) ?? false
        let appClip = boolean(path + ["appClip"]) ?? false
        guard let teamID, let bundleID else { return nil }
        return AppleApp(teamID: teamID, bundleID: bundleID, appStoreID: appStoreID, paths: paths,
                        webcredentials: webcredentials, appClip: appClip)
    }

    private mutating func readAndroidApp(index: Int) -> AndroidApp? {
        let path = ["android", "apps", String(index)]
        let packageName = required(path + ["packageName"], ConfigurationValidators.packageName,
                                   expected: "an application ID such as \"com.example.app\"")
        let fingerprints = validatedList(path + ["fingerprints"], ConfigurationValidators.fingerprint,
                                         expected: "SHA-256 fingerprints: 32 hex bytes, such as \"14:6D:E9:...:B5\"")
        if fingerprints.isEmpty, stringList(path + ["fingerprints"]) == nil {
            report(path + ["fingerprints"], problem: "is missing",
                   expected: "the app's SHA-256 signing-certificate fingerprints (the Play App Signing key too)")
        }
        guard let packageName else { return nil }
        return AndroidApp(packageName: packageName, fingerprints: fingerprints)
    }

    private mutating func reportDuplicates(_ identifiers: [String], list: [String], field: String, what: String) {
        var seen: [String: Int] = [:]
        for (index, identifier) in identifiers.enumerated() {
            if let first = seen[identifier] {
                report(list + [String(index), field], problem: "duplicates \(SchemaFlattener.display(list + [String(first)])) (\(what) \(identifier))",
                       expected: "each app listed once")
            } else {
                seen[identifier] = index
            }
        }
    }

    // MARK: Typed access

    private mutating func string(_ path: [String]) -> String? {
        guard let value = reader.string(forKey: ConfigKey(path)) else {
            reportTypeMismatch(path, expected: "a string")
            return nil
        }
        return value
    }

    private mutating func integer(_ path: [String]) -> Int? {
        guard let value = reader.int(forKey: ConfigKey(path)) else {
            reportTypeMismatch(path, expected: "an integer")
            return nil
        }
        return value
    }

    /// The integer at `path`, or `fallback` when it is absent, or out of `range` (reported).
    private mutating func integer(_ path: [String], in range: ClosedRange<Int>, default fallback: Int, expected: String) -> Int {
        guard let value = integer(path) else { return fallback }
        guard range.contains(value) else {
            report(path, problem: "\(value) is out of range", expected: expected)
            return fallback
        }
        return value
    }

    private mutating func boolean(_ path: [String]) -> Bool? {
        guard let value = reader.bool(forKey: ConfigKey(path)) else {
            reportTypeMismatch(path, expected: "true or false")
            return nil
        }
        return value
    }

    private mutating func stringList(_ path: [String]) -> [String]? {
        guard let value = reader.stringArray(forKey: ConfigKey(path)) else {
            reportTypeMismatch(path, expected: "a list of strings")
            return nil
        }
        return value.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// A value that is present but could not be read as its type (only environment variables and
    /// overrides can get here: the file's types were checked against the schema).
    private mutating func reportTypeMismatch(_ path: [String], expected: String) {
        let name = ConfigurationSchema.environmentVariable(for: path)
        if let raw = environment[name], overrides[path.joined(separator: ".")] == nil {
            problems.append(.init(source: "environment", key: name, problem: "\"\(raw)\" is not \(expected)", expected: expected))
        }
    }

    /// Keys whose values are secrets: a problem with one never repeats the value (it would end up in logs).
    static let secretKeys: Set<[String]> = [["formSecret"], ["storage", "postgresURL"], ["backend", "adminKeys"]]

    private mutating func validated(_ path: [String], _ validate: (String) -> String?, expected: String) -> String? {
        guard let value = string(path) else { return nil }
        guard let valid = validate(value) else {
            report(path, problem: Self.secretKeys.contains(path) ? "is not valid (the value is secret and not shown)" : "\"\(value)\" is not valid",
                   expected: expected)
            return nil
        }
        return valid
    }

    private mutating func required(_ path: [String], _ validate: (String) -> String?, expected: String) -> String? {
        if reader.string(forKey: ConfigKey(path)) == nil {
            report(path, problem: "is missing", expected: expected)
            return nil
        }
        return validated(path, validate, expected: expected)
    }

    private mutating func validatedList(_ path: [String], _ validate: (String) -> String?, expected: String) -> [String] {
        guard let values = stringList(path) else { return [] }
        var result: [String] = []
        for (index, value) in values.enumerated() {
            if let valid = validate(value) {
                result.append(valid)
            } else {
                report(path, problem: "element \(index), \"\(value)\", is not valid", expected: expected)
            }
        }
        return result
    }

    // MARK: Problems

    /// Records a problem against the source that actually supplied `path`'s value.
    mutating func report(_ path: [String], problem: String, expected: String) {
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
    mutating func reportUnknownEnvironmentVariables() {
        var known = ConfigurationSchema.environmentVariablesOutsideSchema
        Self.collectEnvironmentNames(ConfigurationSchema.root, path: [], counts: listCounts, into: &known)
        let prefix = ConfigurationSchema.environmentPrefix + "_"
        for name in environment.keys.sorted() where name.hasPrefix(prefix) && !known.contains(name) {
            problems.append(.init(source: "environment", key: name, problem: "is not a configuration key",
                                  expected: "a documented LINKDOMAIN_* variable (see README, Configuration)"))
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
