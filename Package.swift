// swift-tools-version: 6.1
import PackageDescription

/// Every target: the upcoming features Hummingbird also turns on (`any` written for every
/// existential; a member used only where its module is imported).
let strictSettings: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny"), .enableUpcomingFeature("MemberImportVisibility")]

let package = Package(
    name: "LinkDomain",
    platforms: [.macOS(.v15), .iOS(.v17)],
    products: [
        .executable(name: "linkdomain", targets: ["linkdomain"]),
        .library(name: "LinkDomain", targets: ["LinkDomain"]),
        // The pure part alone: what the benchmarks and anything that only parses and decides links need.
        .library(name: "LinkDomainCore", targets: ["LinkDomainCore"]),
        // What the fuzzers (their own package) and the tests drive; never linked into the binary.
        .library(name: "LinkDomainExercises", targets: ["LinkDomainExercises"]),
        .library(name: "LinkDomainCoreExercises", targets: ["LinkDomainCoreExercises"]),
        // The app half, for iOS, macOS and Linux apps: Foundation and URLSession only.
        .library(name: "LinkDomainClient", targets: ["LinkDomainClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swiftcsv/SwiftCSV", from: "0.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ],
    targets: [
        // The pure part: link parsing, the Identity Toolkit vocabulary, configuration, routing
        // decisions and answers, the association files, app attribution, assets. Nothing here does
        // I/O: no server, socket, TLS, database, HTTP client, JWT or metrics library.
        .target(
            name: "LinkDomainCore",
            dependencies: [
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // SQLite and PostgreSQL behind the store protocols.
        .target(
            name: "LinkDomainStorage",
            dependencies: [
                "LinkDomainCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // Transport, pages, mail, the backends, the console and the server.
        .target(
            name: "LinkDomain",
            dependencies: [
                "LinkDomainCore",
                "LinkDomainStorage",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP2", package: "swift-nio-extras"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "SwiftCSV", package: "SwiftCSV"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "LinkDomainExercises",
            dependencies: [
                "LinkDomain",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // EmbeddedChannel: the request-head exercise checks the event loop's reader against NIO's decoder.
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // The link exercise needs the core alone: the link fuzzer builds without the server.
        .target(name: "LinkDomainCoreExercises", dependencies: ["LinkDomainCore"], swiftSettings: strictSettings),
        .target(name: "LinkDomainClient", swiftSettings: strictSettings),
        .executableTarget(
            name: "linkdomain",
            dependencies: [
                "LinkDomain",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LinkDomainTests",
            dependencies: [
                "LinkDomainCore",
                "LinkDomainStorage",
                "LinkDomain",
                "LinkDomainExercises",
                "LinkDomainCoreExercises",
                "LinkDomainClient",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The fuzzers' corpora: read from the source tree by the tests, not bundled.
            exclude: [
                "LinkParsing/FuzzCorpus", "EmbeddedBackend/FuzzCorpus", "Mail/FuzzCorpus", "FastPath/FuzzCorpus", "ACME/FuzzCorpus",
            ],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
