import Configuration
import Foundation
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Configuration loading and validation")
struct ConfigurationLoaderTests {
    @Test("a multi-app file loads in order, with fingerprints and domains normalised")
    func multiAppFile() throws {
        let configuration = try Fixtures.load(Fixtures.multiAppJSON)
        #expect(configuration.publicBaseURL == "https://links.example.com")
        #expect(configuration.server.port == 0)
        #expect(configuration.apple.apps.map(\.appID) == ["ABCDE12345.com.example.mail", "ZYXWV98765.com.example.shop"])
        #expect(configuration.apple.apps[0].appStoreID == "1234567890")
        #expect(configuration.apple.apps[1].paths == ["/open/*", "NOT /open/private/*"])
        #expect(configuration.apple.apps[1].webcredentials && configuration.apple.apps[1].appClip)
        #expect(configuration.android.apps.map(\.packageName) == ["com.example.mail", "com.example.shop"])
        #expect(configuration.android.apps[1].fingerprints == [Fixtures.fingerprintB, Fixtures.fingerprintA])
        #expect(configuration.authorizedDomains == ["example.com", "shop.example.com"])
        #expect(configuration.backend.kind == .embedded)
    }

    @Test("the committed demo configuration is valid")
    func demoConfiguration() throws {
        let path = Fixtures.repositoryRoot.appendingPathComponent("linkdomain.json").path
        let configuration = try ConfigurationLoader(environment: [:], checkTLSFiles: CertificateStore.check).load(path: path)
        #expect(configuration.server.port == 8080)
        #expect(configuration.publicBaseURL == "http://127.0.0.1:8080")
        #expect(configuration.apple.associationFile == Fixtures.repositoryRoot.appendingPathComponent("apple-app-site-association").path)
    }

    @Test("an empty configuration gives the documented defaults")
    func defaults() throws {
        let configuration = try Fixtures.load("{}")
        #expect(configuration == LinkDomainConfiguration(publicBaseURL: "http://127.0.0.1:8080"))
    }

    @Test(
        "each invalid value is reported with its key, the problem and what is expected",
        arguments: [
            (#"{"apple":{"apps":[{"teamID":"abcde12345","bundleID":"com.example.app"}]}}"#, "apple.apps[0].teamID", "10 upper-case"),
            (#"{"apple":{"apps":[{"teamID":"ABCDE1234","bundleID":"com.example.app"}]}}"#, "apple.apps[0].teamID", "10 upper-case"),
            (#"{"apple":{"apps":[{"teamID":"ABCDE12345","bundleID":"app"}]}}"#, "apple.apps[0].bundleID", "bundle ID"),
            (#"{"apple":{"apps":[{"teamID":"ABCDE12345","bundleID":"com.exa mple.app"}]}}"#, "apple.apps[0].bundleID", "bundle ID"),
            (#"{"apple":{"apps":[{"teamID":"ABCDE12345","bundleID":"com..app"}]}}"#, "apple.apps[0].bundleID", "bundle ID"),
            (#"{"apple":{"apps":[{"bundleID":"com.example.app"}]}}"#, "apple.apps[0].teamID", "10 upper-case"),
            (#"{"apple":{"apps":[{"teamID":"ABCDE12345","bundleID":"com.example.app","appStoreID":"id123"}]}}"#, "apple.apps[0].appStoreID", "digits"),
            (#"{"apple":{"apps":[{"teamID":"ABCDE12345","bundleID":"com.example.app","paths":["open/*"]}]}}"#, "apple.apps[0].paths", "path patterns"),
            (
                #"{"android":{"apps":[{"packageName":"com.1example.app","fingerprints":["\#(Fixtures.fingerprintA)"]}]}}"#, "android.apps[0].packageName",
                "application ID"
            ),
            (
                #"{"android":{"apps":[{"packageName":"example","fingerprints":["\#(Fixtures.fingerprintA)"]}]}}"#, "android.apps[0].packageName",
                "application ID"
            ),
            (#"{"android":{"apps":[{"packageName":"com.example.app","fingerprints":["14:6D:E9"]}]}}"#, "android.apps[0].fingerprints", "32 hex bytes"),
            (
                #"{"android":{"apps":[{"packageName":"com.example.app","fingerprints":["\#(Fixtures.fingerprintA.replacingOccurrences(of: "E5", with: "G5"))"]}]}}"#,
                "android.apps[0].fingerprints", "32 hex bytes"
            ),
            (#"{"android":{"apps":[{"packageName":"com.example.app"}]}}"#, "android.apps[0].fingerprints", "fingerprints"),
            (#"{"authorizedDomains":["example.com/path"]}"#, "authorizedDomains", "host names"),
            (#"{"publicBaseURL":"http://links.example.com"}"#, "publicBaseURL", "https://"),
            (#"{"publicBaseURL":"https://links.example.com/path"}"#, "publicBaseURL", "no path"),
            (#"{"backend":{"kind":"firebase"}}"#, "backend.kind", "embedded, emulator, identityToolkit"),
            (#"{"server":{"port":70000}}"#, "server.port", "0 to 65535"),
            (#"{"server":{"idleTimeoutSeconds":0}}"#, "server.idleTimeoutSeconds", "1 to 3600"),
            (#"{"server":{"tls":{"certificatePath":"/etc/ssl/certs/x.pem"}}}"#, "server.tls.privateKeyPath", "PEM private key"),
            (#"{"server":{"tls":{"privateKeyPath":"/etc/ssl/private/x.key"}}}"#, "server.tls.certificatePath", "PEM certificate"),
            (
                #"{"server":{"tls":{"certificatePath":"/nonexistent/cert.pem","privateKeyPath":"/nonexistent/key.pem"}}}"#,
                "server.tls.certificatePath", "readable PEM"
            ),
        ]
    )
    func invalidValue(json: String, key: String, expected: String) {
        let problems = Fixtures.problems(json)
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.source == "test.json")
        #expect(problems.first?.key == key)
        #expect(problems.first?.expected.contains(expected) == true, "\(problems)")
    }

    @Test("unknown keys are errors that name the key, at any depth")
    func unknownKeys() {
        let problems = Fixtures.problems(
            #"{"publicBaseUrl":"https://x.example.com","apple":{"apps":[{"teamID":"ABCDE12345","bundleID":"com.a.b","bundleId":"x"}]}}"#)
        #expect(problems.map(\.key) == ["apple.apps[0].bundleId", "publicBaseUrl"])
        #expect(problems.allSatisfy { $0.problem == "unknown key" })
        #expect(problems[1].expected.contains("publicBaseURL"))
    }

    @Test("values of the wrong JSON type are reported")
    func wrongTypes() {
        let problems = Fixtures.problems(
            #"{"server":{"port":"8080"},"authorizedDomains":"example.com","apple":{"apps":[{"teamID":"ABCDE12345","bundleID":"com.a.b","webcredentials":"yes"}]}}"#
        )
        #expect(problems.map(\.key) == ["apple.apps[0].webcredentials", "authorizedDomains", "server.port"])
        #expect(problems.map(\.expected) == ["true or false", "a list of strings", "an integer"])
    }

    @Test("duplicate apps are errors")
    func duplicateApps() {
        let json = """
            {"apple":{"apps":[{"teamID":"ABCDE12345","bundleID":"com.a.b"},{"teamID":"ABCDE12345","bundleID":"com.a.b"}]},
             "android":{"apps":[{"packageName":"com.a.b","fingerprints":["\(Fixtures.fingerprintA)"]},
                                {"packageName":"com.a.b","fingerprints":["\(Fixtures.fingerprintB)"]}]}}
            """
        let problems = Fixtures.problems(json)
        #expect(problems.map(\.key) == ["apple.apps[1].bundleID", "android.apps[1].packageName"])
        #expect(problems.allSatisfy { $0.problem.contains("duplicates") })
    }

    @Test("every problem is listed, not only the first")
    func allProblems() {
        let problems = Fixtures.problems(
            #"{"apple":{"apps":[{"teamID":"x","bundleID":"y"}]},"android":{"apps":[{"packageName":"z","fingerprints":["00"]}]},"extra":1}"#)
        #expect(
            problems.map(\.key) == [
                "extra", "apple.apps[0].teamID", "apple.apps[0].bundleID", "android.apps[0].packageName", "android.apps[0].fingerprints",
            ])
    }

    @Test("a file that is not JSON, or not an object, is one clear problem")
    func notJSON() {
        #expect(Fixtures.problems("{ nope").map(\.key) == ["(file)"])
        #expect(Fixtures.problems("[1]").first?.problem == "holds a list")
    }

    @Test("environment variables override file values, and can add apps")
    func environmentOverrides() throws {
        let configuration = try Fixtures.load(
            Fixtures.multiAppJSON,
            environment: [
                "LINKDOMAIN_PUBLIC_BASE_URL": "https://login.example.org/",
                "LINKDOMAIN_SERVER_PORT": "9090",
                "LINKDOMAIN_APPLE_APPS_0_TEAM_ID": "QWERT12345",
                "LINKDOMAIN_APPLE_APPS_1_WEBCREDENTIALS": "false",
                "LINKDOMAIN_ANDROID_APPS_2_PACKAGE_NAME": "org.example.third",
                "LINKDOMAIN_ANDROID_APPS_2_FINGERPRINTS": "\(Fixtures.fingerprintA),\(Fixtures.fingerprintB)",
                "LINKDOMAIN_AUTHORIZED_DOMAINS": "example.org, login.example.org",
                "LINKDOMAIN_CONFIG": "ignored-here.json",
                "UNRELATED": "1",
            ]
        )
        #expect(configuration.publicBaseURL == "https://login.example.org")
        #expect(configuration.server.port == 9090)
        #expect(configuration.apple.apps[0].appID == "QWERT12345.com.example.mail")
        #expect(configuration.apple.apps[1].webcredentials == false)
        #expect(configuration.android.apps.map(\.packageName) == ["com.example.mail", "com.example.shop", "org.example.third"])
        #expect(configuration.android.apps[2].fingerprints == [Fixtures.fingerprintA, Fixtures.fingerprintB])
        #expect(configuration.authorizedDomains == ["example.org", "login.example.org"])
    }

    @Test("the environment variable names follow swift-configuration's encoding")
    func environmentNames() {
        #expect(ConfigurationSchema.environmentVariable(for: ["publicBaseURL"]) == "LINKDOMAIN_PUBLIC_BASE_URL")
        #expect(ConfigurationSchema.environmentVariable(for: ["apple", "apps", "3", "teamID"]) == "LINKDOMAIN_APPLE_APPS_3_TEAM_ID")
        #expect(ConfigurationSchema.environmentVariable(for: ["apple", "associationFile"]) == "LINKDOMAIN_APPLE_ASSOCIATION_FILE")
        #expect(ConfigurationSchema.environmentVariable(for: ["android", "apps", "0", "fingerprints"]) == "LINKDOMAIN_ANDROID_APPS_0_FINGERPRINTS")
    }

    @Test("bad environment values and unknown LINKDOMAIN_ variables name the variable")
    func environmentProblems() {
        let problems = Fixtures.problems(
            "{}",
            environment: [
                "LINKDOMAIN_SERVER_PORT": "eighty",
                "LINKDOMAIN_SERVR_HOST": "0.0.0.0",
                "LINKDOMAIN_APPLE_APPS_0_TEAM_ID": "ABCDE12345",
            ]
        )
        #expect(Set(problems.map(\.key)) == ["LINKDOMAIN_SERVR_HOST", "LINKDOMAIN_SERVER_PORT", "LINKDOMAIN_APPLE_APPS_0_BUNDLE_ID"])
        #expect(problems.allSatisfy { $0.source == "environment" })
        #expect(problems.first { $0.key == "LINKDOMAIN_SERVER_PORT" }?.source == "environment")
        #expect(problems.first { $0.key == "LINKDOMAIN_SERVR_HOST" }?.problem == "is not a configuration key")
    }

    @Test("fingerprints are accepted in lower case or without colons")
    func fingerprintNormalisation() {
        let bare = Fixtures.fingerprintA.replacingOccurrences(of: ":", with: "")
        #expect(ConfigurationValidators.fingerprint(bare.lowercased()) == Fixtures.fingerprintA)
        #expect(ConfigurationValidators.fingerprint(Fixtures.fingerprintA.lowercased()) == Fixtures.fingerprintA)
        #expect(ConfigurationValidators.fingerprint(bare + "0") == nil)
        #expect(ConfigurationValidators.fingerprint(String(bare.dropLast(2))) == nil)
    }
}
