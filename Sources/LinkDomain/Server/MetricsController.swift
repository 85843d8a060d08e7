import Hummingbird
import LinkDomainCore
import LinkDomainStorage
import Prometheus

/// Serves the counters at `/metrics` in Prometheus's text format.
struct MetricsController<Context: RequestContext>: Sendable {
    let metrics: LinkMetrics
    let certificates: CertificateStore?
    let clock: any WallClock

    var routes: RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        routes.get(RouterPath(RoutePaths.metrics)) { _, _ -> Response in
            // Seconds until expiry, as of this scrape.
            if let served = certificates?.served {
                let left = served.notAfter.subtractingReportingOverflow(clock.nowSeconds).partialValue
                for name in served.names { metrics.certificateExpiry(name: name, seconds: left) }
            }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }
        return routes
    }
}
