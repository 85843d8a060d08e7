import Benchmark
import Foundation
import LinkDomainCore

/// What one click costs before any I/O: parsing the link, classifying the visitor, deciding the
/// route. The inputs are the shapes `scripts/bench` sends over HTTP.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.throughput, .wallClock, .mallocCountTotal],
        warmupIterations: 10,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: .kilo(100)
    )

    let action = "https://links.example.com/__/auth/action?apiKey=AIzaSyB-key_0123456789&mode=signIn&oobCode=Q1w2E3r4T5y6U7i8O9p0"
        + "&continueUrl=https%3A%2F%2Fexample.com%2Fdone%3Fcart%3D42&lang=en"
    // As mail clients receive it: the action link as the `link` parameter, its `&`, `=` and `%` escaped.
    let nestedQuery = "link=" + action.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "&", with: "%26")
        .replacingOccurrences(of: "=", with: "%3D")
    let dynamicQuery = "link=https%3A%2F%2Fexample.com%2Fproduct%2F42&apn=dev.linkdomain.demo&ibi=dev.linkdomain.demo"
        + "&isi=1234567890&ofl=https%3A%2F%2Fexample.com%2Fweb&efr=1"
    let userAgents = [
        "iPhone Safari": "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
        "Android Chrome": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36",
        "desktop Firefox": "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
        "Gmail in-app on iPhone": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 GSA/323.0.647062479 Mobile/15E148 Safari/604.1",
        "Googlebot": "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    ]
    let router = LinkRouter(appleApps: [AppleApp(teamID: "A1B2C3D4E5", bundleID: "dev.linkdomain.demo", appStoreID: "1234567890")],
                            androidApps: [AndroidApp(packageName: "dev.linkdomain.demo", fingerprints: [])],
                            policy: RedirectPolicy(authorizedDomains: ["example.com", "links.example.com"]), publicHost: "links.example.com")

    Benchmark("parse: action link, /__/auth/action") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(LinkParser.parse(url: action))
        }
    }

    Benchmark("parse: nested link=, /__/auth/links") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(LinkParser.parse(path: "/__/auth/links", query: Substring(nestedQuery)))
        }
    }

    Benchmark("parse: legacy Dynamic Link") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(LinkParser.parseDynamicLink(query: Substring(dynamicQuery)))
        }
    }

    for (name, userAgent) in userAgents.sorted(by: { $0.key < $1.key }) {
        Benchmark("classify: \(name)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(PlatformClassifier.classify(userAgent: userAgent))
            }
        }
    }

    guard case .success(let signIn) = LinkParser.parse(url: action), let dynamic = LinkParser.parseDynamicLink(query: Substring(dynamicQuery))
    else { fatalError("the benchmark links no longer parse") }
    for platform in [Platform.desktop, .iOS, .android] {
        let visitor = Visitor(platform: platform)
        Benchmark("route: sign-in link, \(platform.rawValue)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(router.decide(signIn, visitor: visitor))
            }
        }
        Benchmark("route: Dynamic Link, \(platform.rawValue)") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(router.decide(dynamic, visitor: visitor, pathAndQuery: "/?" + dynamicQuery))
            }
        }
    }

    // The whole of a desktop sign-in click before any I/O: the request path parsed, the visitor
    // classified, the route decided. The "1 million links/s on one core" is this row.
    let desktop = userAgents["desktop Firefox"]!
    Benchmark("click: parse + classify + route, desktop sign-in") { benchmark in
        for _ in benchmark.scaledIterations {
            let visitor = PlatformClassifier.classify(userAgent: desktop)
            if case .success(let link) = LinkParser.parse(path: "/__/auth/links", query: Substring(nestedQuery)) {
                blackHole(router.decide(link, visitor: visitor))
            }
        }
    }
}
