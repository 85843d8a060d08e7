import LinkDomainCore
import LinkDomainStorage
import Prometheus

/// Dependencies at `/metrics`: `linkdomain_dependency_up{dependency="database"}` (1 or 0, as the
/// probe last found it) and `linkdomain_dependency_errors_total{dependency="database"}`.
extension LinkMetrics {
    func dependency(_ name: String, isUp: Bool) {
        registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "linkdomain", metricName: "dependency_up", unitName: "",
                helpText: "Whether a dependency answered its last probe (1) or not (0)."),
            labels: [("dependency", name)]
        ).set(Double(isUp ? 1 : 0))
    }

    func dependencyError(_ name: String) {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(
                namespace: "linkdomain", metricName: "dependency_errors", unitName: "total",
                helpText: "Failed probes of a dependency."),
            labels: [("dependency", name)]
        ).increment()
    }
}
