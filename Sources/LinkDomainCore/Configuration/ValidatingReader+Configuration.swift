import Foundation

/// Reading the whole configuration, key by key from ``ConfigurationKeys``, into the nested value.
extension ValidatingReader {
    package mutating func readConfiguration(baseDirectory: String?) -> LinkDomainConfiguration? {
        var server = LinkDomainConfiguration.Server()
        server.host = string(ConfigurationKeys.serverHost) ?? server.host
        server.port = integer(ConfigurationKeys.serverPort)
        server.idleTimeoutSeconds = integer(ConfigurationKeys.idleTimeoutSeconds)
        server.forceDevelopmentMode = boolean(ConfigurationKeys.forceDevelopmentMode)
        server.tls = readTLSFiles(baseDirectory: baseDirectory)
        server.httpPort = optionalInteger(ConfigurationKeys.httpPort)
        let acmeIsOn = ConfigurationKeys.acmeKeys.contains { isPresent($0) }
        let defaultBaseURL =
            "\(server.tls == nil && !acmeIsOn ? "http" : "https")://\(server.host.contains(":") ? "[\(server.host)]" : server.host):\(server.port)"

        var configuration = LinkDomainConfiguration(publicBaseURL: validated(ConfigurationKeys.publicBaseURL) ?? defaultBaseURL)
        configuration.server = server
        configuration.pivotBaseURL = validated(ConfigurationKeys.pivotBaseURL)
        configuration.actionPath = validated(ConfigurationKeys.actionPath)
        if acmeIsOn { configuration.server.acme = readACME(configuration, baseDirectory: baseDirectory) }
        if configuration.server.httpPort != nil, !configuration.server.terminatesTLS {
            report(
                ConfigurationKeys.httpPort.path(), problem: "needs TLS: the plain port redirects to https://",
                expected: "server.tls.certificatePath and privateKeyPath, or server.tls.acme")
        }
        configuration.publicDirectory = path(ConfigurationKeys.publicDirectory, baseDirectory: baseDirectory)
        if let directory = configuration.publicDirectory, let problem = PageAssets.problem(inDirectory: directory) {
            report(ConfigurationKeys.publicDirectory.path(), problem: problem, expected: ConfigurationKeys.publicDirectory.expected)
        }
        configuration.formSecret = string(ConfigurationKeys.formSecret)
        if let secret = configuration.formSecret, secret.utf8.count < 32 {
            report(ConfigurationKeys.formSecret.path(), problem: "is \(secret.utf8.count) characters long", expected: ConfigurationKeys.formSecret.expected)
        }
        configuration.authorizedDomains = list(ConfigurationKeys.authorizedDomains) ?? []
        configuration.apple.apps = (0..<(listCounts[["apple", "apps"]] ?? 0)).compactMap { readAppleApp(index: $0) }
        configuration.apple.associationFile = path(ConfigurationKeys.appleAssociationFile, baseDirectory: baseDirectory)
        configuration.android.apps = (0..<(listCounts[["android", "apps"]] ?? 0)).compactMap { readAndroidApp(index: $0) }
        reportDuplicates(configuration.apple.apps.map(\.appID), key: ConfigurationKeys.appleBundleID, what: "app ID")
        reportDuplicates(configuration.android.apps.map(\.packageName), key: ConfigurationKeys.androidPackageName, what: "package name")
        configuration.limits.requestsPerMinute = integer(ConfigurationKeys.requestsPerMinute)
        configuration.limits.burst = integer(ConfigurationKeys.burst)
        configuration.limits.pageChecksPerMinute = integer(ConfigurationKeys.pageChecksPerMinute)
        configuration.limits.pageChecksBurst = integer(ConfigurationKeys.pageChecksBurst)
        configuration.handoffLifetimeSeconds = integer(ConfigurationKeys.handoffLifetimeSeconds)
        configuration.storageTimeoutSeconds = integer(ConfigurationKeys.storageTimeoutSeconds)
        configuration.healthCheckSeconds = integer(ConfigurationKeys.healthCheckSeconds)
        configuration.limits.trustedProxies = list(ConfigurationKeys.trustedProxies) ?? []
        configuration.shortLinks.apiKeys = secretKeys(ConfigurationKeys.shortLinkAPIKeys, minimumLength: 16)
        configuration.console.users = (0..<(listCounts[["console", "users"]] ?? 0)).compactMap { index in
            let name = validated(ConfigurationKeys.consoleUserName, index: index)
            let hash = validated(ConfigurationKeys.consoleUserPasswordHash, index: index)
            return name.flatMap { name in hash.map { LinkDomainConfiguration.Console.User(name: name, passwordHash: $0) } }
        }
        reportDuplicates(configuration.console.users.map(\.name), key: ConfigurationKeys.consoleUserName, what: "console user")
        configuration.console.idleMinutes = integer(ConfigurationKeys.consoleIdleMinutes)
        let postgresURL = validated(ConfigurationKeys.postgresURL)
        let sqlitePath = Self.resolve(string(ConfigurationKeys.sqlitePath) ?? ConfigurationKeys.defaultSQLitePath, against: baseDirectory)
        configuration.storage = postgresURL.map { .postgres(url: $0) } ?? .sqlite(path: sqlitePath)
        configuration.mail = readMail(baseDirectory: baseDirectory)
        configuration.branding = readBranding()
        configuration.defaultLanguage = validated(ConfigurationKeys.pagesDefaultLanguage) ?? configuration.defaultLanguage
        guard var backend = readBackend() else { return nil }
        backend.serviceAccount = readServiceAccount(baseDirectory: baseDirectory)
        configuration.backend = backend
        configuration.authDomain = readAuthDomain(backend: backend)
        // Built even when something is wrong, so that the deployment checks below report alongside the rest.
        reportMissingDeploymentKeys(configuration)
        return problems.isEmpty ? configuration : nil
    }

    private mutating func readBackend() -> LinkDomainConfiguration.Backend? {
        var backend = LinkDomainConfiguration.Backend()
        backend.projectID = validated(ConfigurationKeys.backendProjectID) ?? backend.projectID
        let explicitAPIKey = string(ConfigurationKeys.backendAPIKey)
        let listedAPIKeys = list(ConfigurationKeys.backendAPIKeys) ?? []
        backend.clientAPIKeys = (explicitAPIKey.map { [$0] } ?? []) + listedAPIKeys
        backend.apiKey = explicitAPIKey ?? listedAPIKeys.first ?? backend.apiKey
        backend.adminKeys = secretKeys(ConfigurationKeys.backendAdminKeys, minimumLength: 32)
        backend.emailEnumerationProtection = boolean(ConfigurationKeys.emailEnumerationProtection)
        backend.codeLifetimeSeconds = integer(ConfigurationKeys.codeLifetimeSeconds)
        backend.timeoutSeconds = integer(ConfigurationKeys.backendTimeoutSeconds)
        backend.idTokenKeysURL = validated(ConfigurationKeys.backendIDTokenKeysURL) ?? backend.idTokenKeysURL
        let url = validated(ConfigurationKeys.backendURL)
        let name = string(ConfigurationKeys.backendKind) ?? LinkDomainConfiguration.Backend.Kind.embedded.name
        guard let kind = LinkDomainConfiguration.Backend.Kind(name: name, url: url) else {
            report(ConfigurationKeys.backendKind.path(), problem: "\"\(name)\" is not a backend", expected: ConfigurationKeys.backendKind.expected)
            return nil
        }
        backend.kind = kind
        return backend
    }

    /// `backend.serviceAccountFile`, else `GOOGLE_APPLICATION_CREDENTIALS` (as Google's libraries read it).
    private mutating func readServiceAccount(baseDirectory: String?) -> ServiceAccount? {
        let key = ConfigurationKeys.serviceAccountFile
        guard let path = self.path(key, baseDirectory: baseDirectory) else {
            // The environment's credentials are often a developer's own (gcloud's), not a service
            // account's: used when they are one, never a reason not to start.
            guard let fallback = environment["GOOGLE_APPLICATION_CREDENTIALS"], let data = FileManager.default.contents(atPath: fallback),
                case .success(let account) = ServiceAccount.parse(data)
            else { return nil }
            return account
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            report(key.path(), problem: "\(path) cannot be read", expected: key.expected)
            return nil
        }
        switch ServiceAccount.parse(data) {
        case .success(let account): return account
        case .failure(let problem):
            report(key.path(), problem: "\(path) \(problem.reason)", expected: key.expected)
            return nil
        }
    }

    /// A list of secret keys, each at least `minimumLength` long; a short one is reported by its
    /// index and length only.
    private mutating func secretKeys(_ key: ConfigurationKey, minimumLength: Int) -> [String] {
        let keys = list(key) ?? []
        for (index, value) in keys.enumerated() where value.utf8.count < minimumLength {
            report(key.path(), problem: "key \(index) is \(value.utf8.count) characters long", expected: key.expected)
        }
        return keys
    }

    /// A deployment serving the embedded backend must say who may call it: the emulator's "any key,
    /// `Bearer owner`" would hand every account to anyone who finds the host.
    private mutating func reportMissingDeploymentKeys(_ configuration: LinkDomainConfiguration) {
        guard configuration.backend.kind == .embedded, configuration.mode == .deployment else { return }
        let why =
            "this is a deployment (publicBaseURL \(configuration.publicBaseURL), bound to \(configuration.server.host)), "
            + "where the embedded backend takes only configured keys"
        if configuration.backend.clientAPIKeys.isEmpty {
            report(
                ConfigurationKeys.backendAPIKeys.path(), problem: "is missing: \(why)",
                expected: "the API keys your apps send (backend.apiKeys, or backend.apiKey)")
        }
        if configuration.backend.adminKeys.isEmpty {
            report(
                ConfigurationKeys.backendAdminKeys.path(), problem: "is missing: \(why)",
                expected: "one or more secret admin keys of 32+ characters for Authorization: Bearer (openssl rand -hex 32)")
        }
    }

    /// Both TLS files or neither; each must hold what its key says, so a bad file stops the start, not the first handshake.
    private mutating func readTLSFiles(baseDirectory: String?) -> TLSFiles? {
        let certificateKey = ConfigurationKeys.tlsCertificatePath, privateKeyKey = ConfigurationKeys.tlsPrivateKeyPath
        switch (path(certificateKey, baseDirectory: baseDirectory), path(privateKeyKey, baseDirectory: baseDirectory)) {
        case (nil, nil):
            return nil
        case (nil, _?):
            report(certificateKey.path(), problem: "is missing", expected: "a PEM certificate chain file, with server.tls.privateKeyPath")
            return nil
        case (_?, nil):
            report(privateKeyKey.path(), problem: "is missing", expected: "a PEM private key file, with server.tls.certificatePath")
            return nil
        case (let certificatePath?, let keyPath?):
            let files = TLSFiles(certificatePath: certificatePath, privateKeyPath: keyPath)
            do {
                try checkTLSFiles(files)
            } catch {
                switch error {
                case .certificate(let reason): report(certificateKey.path(), problem: reason, expected: certificateKey.expected)
                case .privateKey(let reason): report(privateKeyKey.path(), problem: reason, expected: privateKeyKey.expected)
                }
                return nil
            }
            return files
        }
    }

    private mutating func readAppleApp(index: Int) -> AppleApp? {
        let teamID = validated(ConfigurationKeys.appleTeamID, index: index)
        let bundleID = validated(ConfigurationKeys.appleBundleID, index: index)
        let appStoreID = validated(ConfigurationKeys.appleAppStoreID, index: index)
        let paths = list(ConfigurationKeys.applePaths, index: index) ?? []
        let webcredentials = boolean(ConfigurationKeys.appleWebcredentials, index: index)
        let appClip = boolean(ConfigurationKeys.appleAppClip, index: index)
        guard let teamID, let bundleID else { return nil }
        return AppleApp(teamID: teamID, bundleID: bundleID, appStoreID: appStoreID, paths: paths, webcredentials: webcredentials, appClip: appClip)
    }

    private mutating func readAndroidApp(index: Int) -> AndroidApp? {
        let packageName = validated(ConfigurationKeys.androidPackageName, index: index)
        let fingerprints = list(ConfigurationKeys.androidFingerprints, index: index) ?? []
        let webcredentials = boolean(ConfigurationKeys.androidWebcredentials, index: index)
        guard let packageName else { return nil }
        return AndroidApp(packageName: packageName, fingerprints: fingerprints, webcredentials: webcredentials)
    }

    /// Each app once: `key` is the field that identifies an element of its list.
    private mutating func reportDuplicates(_ identifiers: [String], key: ConfigurationKey, what: String) {
        guard let list = key.list, let field = key.path().last else { return }
        var seen: [String: Int] = [:]
        for (index, identifier) in identifiers.enumerated() {
            if let first = seen[identifier] {
                report(
                    list + [String(index), field], problem: "duplicates \(SchemaFlattener.display(list + [String(first)])) (\(what) \(identifier))",
                    expected: "each app listed once")
            } else {
                seen[identifier] = index
            }
        }
    }
}
