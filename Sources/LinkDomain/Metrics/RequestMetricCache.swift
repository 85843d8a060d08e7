import HTTPTypes
import Prometheus
import Synchronization

struct RequestMetricKey: Hashable, Sendable {
    let route: String
    let method: HTTPRequest.Method
    let status: Int
}

/// The metric objects of each route, method and status seen so far.
final class RequestMetricCache: Sendable {
    typealias Metrics = (requests: Counter, duration: DurationHistogram)
    private let cache = Mutex<[RequestMetricKey: Metrics]>([:])

    func metrics(for key: RequestMetricKey, make: (RequestMetricKey) -> Metrics) -> Metrics {
        if let metrics = cache.withLock({ $0[key] }) { return metrics }
        let made = make(key)
        cache.withLock { $0[key] = made }
        return made
    }
}
