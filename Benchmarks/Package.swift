// swift-tools-version: 6.1
// Micro-benchmarks (ordo-one/benchmark) for the code every click runs before any I/O. Its own
// package, so that the main build and the tests never compile the benchmark framework.
// Run from this directory: `swift package benchmark` (see BENCHMARKS.md at the root).
import PackageDescription

let package = Package(
    name: "LinkDomainBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "LinkDomain", path: ".."),
        // The runtime interposer trait is left off: it needs a package outside the mirror on Linux.
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "LinkHotPaths",
            dependencies: [
                .product(name: "LinkDomainCore", package: "LinkDomain"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/LinkHotPaths",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ],
    swiftLanguageModes: [.v6]
)
