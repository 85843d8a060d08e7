import Foundation
import HTTPTypes
import HummingbirdTesting
@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage
import Logging
import NIOCore
import NIOPosix
import Prometheus
import Synchronization
import Testing

@Suite("Observability: /metrics and logs")
struct ObservabilityTests {
    @Test("/metrics counts requests by route and status, backend calls and spent codes, and holds no code, key or address")
    func metrics() async throws {
        try await BackendHarness().run { client in
            _ = try await client.signUp("metrics@example.com")
            let link = try await ActionPagesTests.mailedLink(client, "VERIFY_EMAIL", email: "metrics@example.com")
            let code = try #require(try await client.oobCodes().first?["oobCode"] as? String)
            let page = try await client.page(ActionPagesTests.path(link))
            #expect(try await client.submit(page).status == .ok)
            _ = try await client.page("/nope")
            let metrics = try await client.client.execute(uri: "/metrics", method: .get) { String(buffer: $0.body) }
            #expect(metrics.contains(#"linkdomain_http_requests_total{route="/__/auth/action",method="GET",status="200"} 1"#), "\(metrics)")
            #expect(metrics.contains(#"linkdomain_http_requests_total{route="/__/auth/action",method="POST",status="303"} 1"#))
            #expect(metrics.contains(#"linkdomain_http_requests_total{route="/__/auth/done",method="GET",status="200"} 1"#))
            #expect(metrics.contains(#"linkdomain_http_requests_total{route="/**",method="GET",status="404"} 1"#))
            #expect(metrics.contains(#"linkdomain_http_request_duration_seconds_count{route="/__/auth/action"} 2"#))
            #expect(metrics.contains(#"linkdomain_backend_calls_total{operation="checkCode",outcome="ok"} 1"#))
            #expect(metrics.contains(#"linkdomain_backend_calls_total{operation="applyCode",outcome="ok"} 1"#))
            #expect(metrics.contains(#"linkdomain_backend_call_duration_seconds_count{operation="applyCode"} 1"#))
            #expect(metrics.contains(#"linkdomain_backend_call_duration_seconds_bucket{operation="applyCode",le="+Inf"} 1"#))
            #expect(metrics.contains(#"linkdomain_codes_spent_total{mode="verifyEmail"} 1"#))
            for secret in [code, "metrics@example.com", "demo-api-key", "correct horse"] {
                #expect(!metrics.contains(secret))
            }
        }
    }

    /// The lines a `LineLogHandler` writes for one request line (with `replica=a` set on the
    /// logger) and one debug line below its level.
    static func loggedLines(_ format: LineLogHandler.Format, level: Logger.Level, metadata: Logger.Metadata) -> [String] {
        let lines = Mutex<[String]>([])
        var logger = Logger(label: "linkdomain") { label in
            LineLogHandler(format: format, label: label, level: .info) { line in lines.withLock { $0.append(line) } }
        }
        logger[metadataKey: "replica"] = "a"
        logger.log(level: level, "request", metadata: metadata)
        logger.debug("not shown")
        return lines.withLock { $0 }
    }

    @Test("JSON logs: one parseable object a line with level, label, message and metadata")
    func jsonLogs() throws {
        let written = Self.loggedLines(.json, level: .info, metadata: ["path": "/__/auth/action", "status": "200"])
        #expect(written.count == 1)
        #expect(written[0].hasSuffix("}\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(written[0].utf8)) as? [String: String])
        #expect(object["level"] == "info" && object["label"] == "linkdomain" && object["message"] == "request")
        #expect(object["path"] == "/__/auth/action" && object["status"] == "200" && object["replica"] == "a")
        #expect(object["time"]?.hasSuffix("Z") == true)
    }

    @Test("text logs: time, level, label and message, then the metadata sorted by key, one line an event")
    func textLogs() throws {
        let written = Self.loggedLines(.text, level: .warning, metadata: ["status": "503", "path": "/__/auth/action"])
        #expect(written.count == 1)
        let parts = written[0].split(separator: " ", maxSplits: 1)
        #expect(parts.first?.hasSuffix("Z") == true)
        #expect(parts.last == "warning linkdomain: request path=/__/auth/action replica=a status=503\n")
    }

    @Test("each request is counted under its own labels, whichever route a thread counted last")
    func requestCounts() {
        let metrics = LinkMetrics()
        let sequence: [(String, HTTPRequest.Method, Int)] = [
            ("/a", .get, 200), ("/a", .get, 200), ("/b", .get, 200), ("/a", .head, 200), ("/a", .get, 304), ("/a", .get, 200),
        ]
        for (route, method, status) in sequence { metrics.request(route: route, method: method, status: status, duration: .milliseconds(1)) }
        let text = String(decoding: metrics.exposition(), as: UTF8.self)
        for (labels, count) in [
            (#"route="/a",method="GET",status="200""#, 3), (#"route="/b",method="GET",status="200""#, 1),
            (#"route="/a",method="HEAD",status="200""#, 1), (#"route="/a",method="GET",status="304""#, 1),
        ] {
            #expect(text.contains("linkdomain_http_requests_total{\(labels)} \(count)\n"), "\(labels)")
        }
    }

    @Test("requests timed on several threads are summed: cumulative buckets up to the count, the sum, one family each")
    func requestsOnThreads() async throws {
        let metrics = LinkMetrics()
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 3)
        // Each thread: 1 ms, 30 ms, 2 s and 20 s (past the last bucket) on "/a", and a 404 on "/b".
        for loop in loops.makeIterator() {
            try await loop.submit {
                for duration: Duration in [.milliseconds(1), .milliseconds(30), .seconds(2), .seconds(20)] {
                    metrics.request(route: "/a", method: .get, status: 200, duration: duration)
                }
                metrics.request(route: "/b", method: .get, status: 404, duration: .microseconds(500))
            }.get()
        }
        try await loops.shutdownGracefully()
        let lines = String(decoding: metrics.exposition(), as: UTF8.self).split(separator: "\n").map(String.init)
        let name = "linkdomain_http_request_duration_seconds"
        #expect(lines.contains(#"linkdomain_http_requests_total{route="/a",method="GET",status="200"} 12"#))
        #expect(lines.contains(#"linkdomain_http_requests_total{route="/b",method="GET",status="404"} 3"#))
        for (le, count) in [("0.001", 3), ("0.025", 3), ("0.05", 6), ("1.0", 6), ("2.5", 9), ("10.0", 9), ("+Inf", 12)] {
            #expect(lines.contains("\(name)_bucket{route=\"/a\",le=\"\(le)\"} \(count)"), "\(le)")
        }
        #expect(lines.contains("\(name)_sum{route=\"/a\"} 66.093"))
        #expect(lines.contains("\(name)_count{route=\"/a\"} 12"))
        #expect(lines.contains("\(name)_bucket{route=\"/b\",le=\"0.001\"} 3"))
        #expect(lines.filter { $0 == "# TYPE \(name) histogram" }.count == 1)
        #expect(lines.filter { $0 == "# TYPE linkdomain_http_requests_total counter" }.count == 1)
        // Every bucket of a route holds at least the one before it.
        let aBuckets = lines.filter { $0.hasPrefix("\(name)_bucket{route=\"/a\"") }.compactMap { Int($0.split(separator: " ").last ?? "") }
        #expect(aBuckets.count == LinkMetrics.latencyBuckets.count + 1 && aBuckets == aBuckets.sorted())
    }

    @Test("a method outside RFC 9110's is counted as OTHER, however many a client makes up")
    func otherMethods() throws {
        let metrics = LinkMetrics()
        for index in 0..<50 {
            metrics.request(route: "unmatched", method: try #require(HTTPRequest.Method("MADEUP\(index)")), status: 404, duration: .milliseconds(1))
        }
        metrics.request(route: "unmatched", method: .patch, status: 404, duration: .milliseconds(1))
        let text = String(decoding: metrics.exposition(), as: UTF8.self)
        #expect(text.contains(#"linkdomain_http_requests_total{route="unmatched",method="OTHER",status="404"} 50"#), "\(text)")
        #expect(text.contains(#"linkdomain_http_requests_total{route="unmatched",method="PATCH",status="404"} 1"#))
        #expect(!text.contains("MADEUP"))
    }

    @Test("a label value is escaped as the text format asks")
    func escapedLabels() {
        var buffer: [UInt8] = []
        MetricFamily.appendEscaped("/a\"b\\c\nd", into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == #"/a\"b\\c\nd"#)
        var help: [UInt8] = []
        MetricFamily.appendEscaped("a\"b\\c\nd", quotes: false, into: &help)
        #expect(String(decoding: help, as: UTF8.self) == #"a"b\\c\nd"#)
    }
}
