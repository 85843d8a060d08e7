import Foundation
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Association files")
struct AssociationFilesTests {
    /// The exact bytes served for ``Fixtures/multiAppJSON``.
    static let expectedApple = """
        {
          "appclips" : {
            "apps" : [
              "ZYXWV98765.com.example.shop.Clip"
            ]
          },
          "applinks" : {
            "apps" : [

            ],
            "details" : [
              {
                "appID" : "ABCDE12345.com.example.mail",
                "appIDs" : [
                  "ABCDE12345.com.example.mail"
                ],
                "components" : [
                  {
                    "/" : "/__/auth/links*",
                    "comment" : "email action links (sign-in, password reset, email verification)"
                  },
                  {
                    "/" : "/__/auth/action*",
                    "comment" : "email action handler"
                  }
                ],
                "paths" : [
                  "/__/auth/links*",
                  "/__/auth/action*"
                ]
              },
              {
                "appID" : "ZYXWV98765.com.example.shop",
                "appIDs" : [
                  "ZYXWV98765.com.example.shop"
                ],
                "components" : [
                  {
                    "/" : "/__/auth/links*",
                    "comment" : "email action links (sign-in, password reset, email verification)"
                  },
                  {
                    "/" : "/__/auth/action*",
                    "comment" : "email action handler"
                  },
                  {
                    "/" : "/open/*"
                  },
                  {
                    "/" : "/open/private/*",
                    "exclude" : true
                  }
                ],
                "paths" : [
                  "/__/auth/links*",
                  "/__/auth/action*",
                  "/open/*",
                  "NOT /open/private/*"
                ]
              }
            ]
          },
          "webcredentials" : {
            "apps" : [
              "ZYXWV98765.com.example.shop"
            ]
          }
        }

        """

    static let expectedAndroid = """
        [
          {
            "relation" : [
              "delegate_permission/common.handle_all_urls"
            ],
            "relation_extensions" : {
              "delegate_permission/common.handle_all_urls" : {
                "dynamic_app_link_components" : [
                  {
                    "/" : "/__/auth/links*",
                    "comment" : "email action links (sign-in, password reset, email verification)"
                  },
                  {
                    "/" : "/__/auth/action*",
                    "comment" : "email action handler"
                  }
                ]
              }
            },
            "target" : {
              "namespace" : "android_app",
              "package_name" : "com.example.mail",
              "sha256_cert_fingerprints" : [
                "\(Fixtures.fingerprintA)"
              ]
            }
          },
          {
            "relation" : [
              "delegate_permission/common.handle_all_urls"
            ],
            "relation_extensions" : {
              "delegate_permission/common.handle_all_urls" : {
                "dynamic_app_link_components" : [
                  {
                    "/" : "/__/auth/links*",
                    "comment" : "email action links (sign-in, password reset, email verification)"
                  },
                  {
                    "/" : "/__/auth/action*",
                    "comment" : "email action handler"
                  }
                ]
              }
            },
            "target" : {
              "namespace" : "android_app",
              "package_name" : "com.example.shop",
              "sha256_cert_fingerprints" : [
                "\(Fixtures.fingerprintB)",
                "\(Fixtures.fingerprintA)"
              ]
            }
          }
        ]

        """

    @Test("generated files are exactly the expected JSON, apps in configuration order")
    func generatedBytes() throws {
        let files = try AssociationFiles(configuration: Fixtures.load(Fixtures.multiAppJSON))
        #expect(files.apple.text == Self.expectedApple)
        #expect(files.android.text == Self.expectedAndroid)
        // The same bytes parse back to the documented structure.
        let parsed = try JSONSerialization.jsonObject(with: Data(files.apple.bytes)) as? [String: Any]
        let details = (parsed?["applinks"] as? [String: Any])?["details"] as? [[String: Any]]
        #expect(details?.map { $0["appIDs"] as? [String] } == [["ABCDE12345.com.example.mail"], ["ZYXWV98765.com.example.shop"]])
    }

    @Test("with short links on, the app also opens short links and legacy long links, and none of the service's own paths")
    func shortLinkPaths() throws {
        let configuration = try Fixtures.load(
            #"""
            {"apple": {"apps": [{"teamID": "ABCDE12345", "bundleID": "com.example.app"}]}, "shortLinks": {"apiKeys": ["0123456789abcdef0123"]}}
            """#)
        let document = try JSONDecoder().decode(JSONValue.self, from: Data(try AssociationFiles(configuration: configuration).apple.bytes))
        guard case .object(let root) = document, case .object(let links)? = root["applinks"], case .list(let details)? = links["details"],
            case .object(let entry)? = details.first
        else { Issue.record("no applinks entry"); return }
        for path in ["/abc123", "/", "/some/old/path", "/__/auth/links", "/__/auth/action"] {
            #expect(AppleAssociationPatterns.handles(path, entry: entry), "\(path)")
            #expect(AppleAssociationPatterns.handles(path, entry: entry.filter { $0.key == "paths" }), "legacy: \(path)")
        }
        for path in [
            "/__/auth/done", "/__/static/styles.css", "/healthz", "/v1/shortLinks", "/.well-known/assetlinks.json", "/favicon.ico",
            "/identitytoolkit.googleapis.com/v1/accounts:signUp",
        ] {
            #expect(!AppleAssociationPatterns.handles(path, entry: entry), "\(path)")
        }
        // Without short links, only the email links.
        let plain = try AssociationFiles(configuration: Fixtures.load(#"{"apple": {"apps": [{"teamID": "ABCDE12345", "bundleID": "com.example.app"}]}}"#))
        #expect(!plain.apple.text.contains("\"/*\""))
    }

    @Test("with no apps the files are still valid, empty documents")
    func noApps() throws {
        let files = try AssociationFiles(configuration: LinkDomainConfiguration(publicBaseURL: "https://l.example.com"))
        #expect(files.apple.text == "{\n  \"applinks\" : {\n    \"apps\" : [\n\n    ],\n    \"details\" : [\n\n    ]\n  }\n}\n")
        #expect(files.android.text == "[\n\n]\n")
    }

    @Test("the entity tag follows the bytes")
    func etags() throws {
        let one = StaticJSONDocument(bytes: Array("{}".utf8))
        let other = StaticJSONDocument(bytes: Array("[]".utf8))
        #expect(one.etag == StaticJSONDocument(bytes: Array("{}".utf8)).etag)
        #expect(one.etag != other.etag)
        #expect(one.etag.hasPrefix("\"") && one.etag.hasSuffix("\"") && one.etag.count == 18)
    }

    @Test("a generated Apple file over 128 KB refuses to start")
    func oversizeGenerated() {
        let paths = (0..<3000).map { "/section-\($0)/*" }
        let apps = [AppleApp(teamID: "ABCDE12345", bundleID: "com.example.big", paths: paths)]
        #expect {
            var configuration = LinkDomainConfiguration(publicBaseURL: "https://l.example.com")
            configuration.apple.apps = apps
            return try AssociationFiles(configuration: configuration)
        } throws: { error in
            (error as? ConfigurationError)?.problems.first?.problem.contains("over Apple's limit") == true
        }
    }

    @Test("the repository's demo file is what the demo configuration's apps generate")
    func demoFileIsCurrent() throws {
        let configuration = try ConfigurationLoader(environment: [:], checkTLSFiles: CertificateStore.check)
            .load(path: Fixtures.repositoryRoot.appendingPathComponent("linkdomain.json").path)
        let served = try AssociationFiles(configuration: configuration)
        var generatedConfiguration = configuration
        generatedConfiguration.apple.associationFile = nil
        let generated = try AssociationFiles(configuration: generatedConfiguration)
        #expect(served.apple == generated.apple)
    }

    @Test("a hand-written Apple file is served verbatim once it validates")
    func handWrittenFile() throws {
        let text = #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.mail"],"components":[{"/":"/__/auth/links*"}]}]}}"#
        let files = try AssociationFiles(configuration: configurationWithFile(text))
        #expect(files.apple.text == text)
    }

    @Test(
        "a hand-written Apple file that iOS would not accept is refused, naming what is wrong",
        arguments: [
            ("not json", "(file)", "is not valid JSON"),
            (
                #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.other"],"components":[{"/":"/__/auth/links*"}]}]}}"#,
                "applinks.details", "does not list the configured app ABCDE12345.com.example.mail"
            ),
            (
                #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.mail"],"components":[{"/":"/other/*"}]}]}}"#,
                "applinks.details", "no component covers /__/auth/links"
            ),
            // Excluded before anything includes it: Apple's first matching component decides, as `doctor` reads it.
            (
                #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.mail"],"components":[{"/":"/__/auth/*","exclude":true},{"/":"*"}]}]}}"#,
                "applinks.details", "no component covers /__/auth/links"
            ),
            (
                #"{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.mail"],"paths":["NOT /__/auth/links*","*"]}]}}"#,
                "applinks.details", "no component covers /__/auth/links"
            ),
            (
                #"{"applinks":{"details":[{"appIDs":["abc.com.example.mail"],"components":[{"/":"/__/auth/links*"}]}]}}"#,
                "applinks.details[0].appIDs", "malformed app ID"
            ),
            (#"{"applinks":{"details":[]},"appLinks":{}}"#, "appLinks", "unknown key"),
        ]
    )
    func invalidHandWrittenFile(text: String, key: String, problem: String) throws {
        #expect {
            try AssociationFiles(configuration: configurationWithFile(text))
        } throws: { error in
            let problems = (error as? ConfigurationError)?.problems ?? []
            return problems.contains { $0.key == key && $0.problem.contains(problem) }
        }
    }

    private func configurationWithFile(_ text: String) throws -> LinkDomainConfiguration {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-\(UUID().uuidString)")
        try Data(text.utf8).write(to: url)
        var configuration = LinkDomainConfiguration(publicBaseURL: "https://l.example.com")
        configuration.apple.apps = [AppleApp(teamID: "ABCDE12345", bundleID: "com.example.mail")]
        configuration.apple.associationFile = url.path
        return configuration
    }
}
