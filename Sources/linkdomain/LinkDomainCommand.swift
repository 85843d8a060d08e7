import ArgumentParser
import Configuration
import Foundation
import Hummingbird
import LinkDomain
import Logging
import NIOCore
import NIOPosix
import UnixSignals

@main
struct LinkDomainCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "linkdomain",
        abstract: "A self-hosted link domain for Firebase email links (the Dynamic Links replacement).",
        version: LinkDomainVersion.current,
        subcommands: [Serve.self, Check.self, Keys.self, Import.self, Doctor.self, Mail.self, Console.self],
        defaultSubcommand: Serve.self
    )
}

struct ConfigurationOptions: ParsableArguments {
    @Option(name: .long, help: "The JSON configuration file (default: $LINKDOMAIN_CONFIG, else ./linkdomain.json if present).")
    var config: String?
}

extension ConfigurationOptions {
    /// Loads and validates everything `serve` needs, printing every problem and exiting 1 on failure.
    func load(overrides: [String: ConfigValue] = [:]) throws -> (LinkDomainConfiguration, AssociationFiles) {
        let loader = ConfigurationLoader(overrides: overrides, checkTLSFiles: CertificateStore.check)
        do {
            let configuration = try loader.load(path: loader.configurationFilePath(explicit: config))
            return (configuration, try AssociationFiles(configuration: configuration))
        } catch {
            FileHandle.standardError.write(Data((error.description + "\n").utf8))
            throw ExitCode(1)
        }
    }
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the link domain (the default command).")

    @OptionGroup var options: ConfigurationOptions
    @Option(help: "The address to bind (overrides server.host).") var host: String?
    @Option(help: "The port to bind (overrides server.port).") var port: Int?
    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical.") var logLevel: String = "info"
    @Option(help: "Log format: text (readable) or json (one object a line).") var logFormat: String = "text"

    func run() async throws {
        // A SIGHUP during start-up is ignored (its default action ends the process); once serving,
        // HangupHandler reloads what can be reloaded.
        signal(SIGHUP, SIG_IGN)
        // Where the runtime lets NIO take over Swift's global executor (a dynamically linked runtime,
        // whose hook NIO finds with dlsym), tasks run on the server's event loops instead of a second
        // thread pool. The static runtime of the release build exports no such hook: there the call
        // does nothing, and the router's tasks run on Swift's own pool.
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        var overrides: [String: ConfigValue] = [:]
        if let host { overrides["server.host"] = ConfigValue(.string(host), isSecret: false) }
        if let port { overrides["server.port"] = ConfigValue(.int(port), isSecret: false) }
        let (configuration, files) = try options.load(overrides: overrides)

        guard let level = Logger.Level(rawValue: logLevel) else {
            throw ValidationError("--log-level must be one of: \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard ["text", "json"].contains(logFormat) else { throw ValidationError("--log-format must be text or json") }
        let format: LineLogHandler.Format = logFormat == "json" ? .json : .text
        LoggingSystem.bootstrap { label in LineLogHandler(format: format, label: label, level: level) }
        // Request lines wait up to 50 ms to be written together: whatever waits is written at exit.
        atexit { LineLogHandler.flush() }
        let logger = Logger(label: "linkdomain")
        for warning in ConfigurationWarnings.of(configuration) { logger.warning("\(warning)") }
        if configuration.isDevelopmentForced {
            logger.warning(
                "DEVELOPMENT MODE FORCED (server.forceDevelopmentMode) on a host others can reach: anyone who reaches it can list every code and act as admin with Authorization: Bearer owner. Never do this on the internet."
            )
        }
        do {
            let services = try await LinkDomainServices.make(configuration: configuration, files: files, logger: logger)
            let app = LinkDomainApplication.build(
                services,
                logger: logger,
                onServerRunning: { port in
                    // Written straight to the file handle so it shows at once even when stdout is a pipe.
                    FileHandle.standardOutput.write(Data((StartupSummary.text(configuration: configuration, listeningPort: port) + "\n").utf8))
                    // Start-up is over: its code and data need not stay resident.
                    StartupMemory.release()
                }
            )
            // Hummingbird runs the server in a ServiceGroup that drains in-flight requests on SIGTERM/SIGINT.
            try await app.runService(gracefulShutdownSignals: [.sigterm, .sigint])
        } catch {
            FileHandle.standardError.write(Data((StartupFailure.describe(error, configuration: configuration) + "\n").utf8))
            throw ExitCode(1)
        }
    }
}

struct Check: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Validate a configuration and print the association files it would serve.",
        discussion: "Exits 1, listing every problem, when the configuration is invalid."
    )

    @OptionGroup var options: ConfigurationOptions

    func run() async throws {
        let (configuration, files) = try options.load()
        print(
            "configuration OK: \(configuration.apple.apps.count) Apple app(s), \(configuration.android.apps.count) Android app(s), "
                + "\(configuration.mode.rawValue) mode" + (configuration.publicDirectory.map { ", pages from \($0)" } ?? ", built-in pages"))
        for warning in ConfigurationWarnings.of(configuration) { print("warning: \(warning)") }
        print(MailCheck.summary(configuration))
        if let acme = configuration.server.acme { print(try await CertificateCheck.summary(configuration, acme: acme)) }
        print("\n/.well-known/apple-app-site-association (\(files.apple.bytes.count) bytes):")
        print(files.apple.text, terminator: files.apple.text.hasSuffix("\n") ? "" : "\n")
        print("\n/.well-known/assetlinks.json (\(files.android.bytes.count) bytes):")
        print(files.android.text, terminator: "")
    }
}

struct Mail: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Mail delivery.", subcommands: [Test.self])

    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send a test mail through the configured relay (mail.smtpURL), signed as configured.",
            discussion: "Exits 1, quoting the relay, when it does not take the mail.")

        @OptionGroup var options: ConfigurationOptions
        @Argument(help: "Where to send it.") var address: String

        func run() async throws {
            let (configuration, _) = try options.load()
            do {
                print(try await MailCheck.sendTestMail(configuration, to: address))
            } catch {
                FileHandle.standardError.write(Data(("mail test failed: \(error.description)\n").utf8))
                throw ExitCode(1)
            }
        }
    }
}

struct Keys: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print every configuration key: its environment variable, type, default and meaning (a Markdown table).")

    func run() {
        print(ConfigurationLoader.keyTable)
    }
}

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import an export of existing short links (CSV with a header row, or JSON).",
        discussion: """
            Columns (CSV header or JSON keys): shortLink, longLink and, optionally, createdAt (ISO 8601, or seconds \
            or milliseconds since 1970). Importing twice is harmless: rows already imported are skipped. Exits 1 when \
            any row is invalid, after importing the rest.
            """
    )

    @OptionGroup var options: ConfigurationOptions
    @Argument(help: "The CSV or JSON file.") var file: String

    func run() async throws {
        let (configuration, _) = try options.load()
        let opened = try OpenedStore.open(configuration, logger: Logger(label: "linkdomain"))
        let report = try await opened.withRunning { store in
            try await ShortLinkImporter(
                store: store, publicBaseURL: configuration.publicBaseURL,
                policy: RedirectPolicy(authorizedDomains: configuration.authorizedDomains)
            ).importFile(file)
        }
        print(report)
        if !report.invalid.isEmpty { throw ExitCode(1) }
    }
}

struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check a deployed link domain the way Apple's CDN and Android's verifier will.",
        discussion: """
            Fetches /.well-known/apple-app-site-association and /.well-known/assetlinks.json from the \
            host, without following redirects, compares the Apple file with the copy Apple's CDN \
            serves to iPhones, checks Firebase's sign-in helper (/__/auth/handler, /__/auth/iframe, \
            their scripts, /__/firebase/init.json) and the passkey and password-manager files \
            where served, and prints each finding with its fix. Exits 1 when anything would stop \
            iOS or Android from opening the links in the app, or a served file is malformed.
            """
    )

    @Argument(help: "The link domain, such as https://links.example.com.") var url: String
    @Option(help: "A PEM file of extra trusted CA certificates (for a private CA on a test host).") var caFile: String?
    @Option(help: "Where Apple's CDN serves its copies of association files (a stand-in, for tests).")
    var appleCDN = DeploymentDoctor.appleCDNBase

    func run() async throws {
        var doctor = DeploymentDoctor(base: url, caFile: caFile)
        doctor.appleCDN = appleCDN
        let findings = await doctor.run()
        for finding in findings {
            let mark =
                switch finding.severity {
                case .ok: "ok     "
                case .warning: "WARNING"
                case .error: "ERROR  "
                }
            print("\(mark) \(finding.subject): \(finding.message)")
            if let fix = finding.fix, finding.severity != .ok { print("        fix: \(fix)") }
        }
        let errors = findings.filter { $0.severity == .error }.count
        print(errors == 0 ? "No problems found: iOS and Android can verify \(url)." : "\(errors) problem(s) found.")
        if errors > 0 { throw ExitCode(1) }
    }
}

struct Console: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The console at /__/console.", subcommands: [HashPassword.self])

    struct HashPassword: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "hash-password",
            abstract: "Read a password from standard input; print its hash for console.users[i].passwordHash.")

        func run() throws {
            guard let password = readLine(strippingNewline: true), !password.isEmpty else {
                throw ValidationError("give the password on standard input, for example: linkdomain console hash-password < password.txt")
            }
            do {
                print(try ConsolePasswords.hash(password))
            } catch let problem as ConsolePasswords.Problem {
                throw ValidationError(problem.description)
            }
        }
    }
}
