import Hummingbird
import LinkDomainCore
import LinkDomainStorage
import Prometheus

/// Serves the counters at `/metrics` in Prometheus's text format.
struct MetricsController<Context: RequestContext>: Sendable {
    let metrics: LinkMetrics

    var routes: RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        routes.get(RouterPath(RoutePaths.metrics)) { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: metrics.registry.emitToBuffer())))
        }
        return routes
    }
}
