import Hummingbird
import Prometheus

/// Counters in Prometheus's text format at `/metrics`. The registry belongs to the application, not
/// to the process, so several applications (tests, replicas in one process) never share counts.
public struct LinkMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()

    public init() {}

    static var linkEvents: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "linkdomain", metricName: "link_events", unitName: "total", helpText: "Short-link resolutions and where they sent visitors.")
    }

    /// Counts one short-link event: `linkdomain_link_events_total{platform="iOS",event="CLICK"}`.
    func count(_ event: LinkEvent, platform: Platform) {
        registry.makeCounter(descriptor: Self.linkEvents, labels: [("platform", platform.rawValue), ("event", event.rawValue)]).increment()
    }
}

struct MetricsController<Context: RequestContext>: Sendable {
    let metrics: LinkMetrics

    func addRoutes(to router: Router<Context>) {
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                     body: .init(byteBuffer: ByteBuffer(bytes: metrics.registry.emitToBuffer())))
        }
    }
}
