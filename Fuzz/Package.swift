// swift-tools-version: 6.1
// libFuzzer on the link parser, on Identity Toolkit request handling, on what mail meets, on request heads and on what ACME meets. Its own package, so that
// the main build never sees a target without a `main`. See README.md beside this file.
import PackageDescription

let package = Package(
    name: "LinkDomainFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "LinkDomain", path: "..")],
    targets: [
        .executableTarget(
            name: "LinkParserFuzzer",
            dependencies: ["FuzzerDriver", .product(name: "LinkDomainCoreExercises", package: "LinkDomain")]
        ),
        .executableTarget(
            name: "IdentityToolkitFuzzer",
            dependencies: ["FuzzerDriver", .product(name: "LinkDomainExercises", package: "LinkDomain")]
        ),
        .executableTarget(
            name: "MailFuzzer",
            dependencies: ["FuzzerDriver", .product(name: "LinkDomainExercises", package: "LinkDomain")]
        ),
        .executableTarget(
            name: "RequestHeadFuzzer",
            dependencies: ["FuzzerDriver", .product(name: "LinkDomainExercises", package: "LinkDomain")]
        ),
        .executableTarget(
            name: "ACMEFuzzer",
            dependencies: ["FuzzerDriver", .product(name: "LinkDomainCoreExercises", package: "LinkDomain")]
        ),
        .target(name: "FuzzerDriver"),
    ],
    swiftLanguageModes: [.v6]
)
