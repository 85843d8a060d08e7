import LinkDomainCore
import LinkDomainStorage

/// Wraps an ``AuthBackend`` to time each call and count how it ended, for `/metrics`.
struct InstrumentedAuthBackend: AuthBackend {
    let backend: any AuthBackend
    let metrics: LinkMetrics

    func checkCode(_ code: String, context: BackendCallContext) async throws(BackendError) -> CodeInfo {
        try await measure("checkCode") { () async throws(BackendError) -> CodeInfo in try await backend.checkCode(code, context: context) }
    }

    /// Not counted here: its caller counts the check once it has answered with it (else the
    /// ``checkCode(_:context:)`` that follows is the check, and counts).
    func checkCodeWithoutWaiting(_ code: String) -> CodeInfo? { backend.checkCodeWithoutWaiting(code) }

    func resetPassword(code: String, newPassword: String, context: BackendCallContext) async throws(BackendError) -> CodeInfo {
        try await measure("resetPassword") { () async throws(BackendError) -> CodeInfo in
            try await backend.resetPassword(code: code, newPassword: newPassword, context: context)
        }
    }

    func applyCode(_ code: String, expecting requestType: OobRequestType, context: BackendCallContext) async throws(BackendError) -> CodeInfo {
        try await measure("applyCode") { () async throws(BackendError) -> CodeInfo in
            try await backend.applyCode(code, expecting: requestType, context: context)
        }
    }

    func isReachable() async -> Bool { await backend.isReachable() }

    private func measure(_ operation: String, _ call: () async throws(BackendError) -> CodeInfo) async throws(BackendError) -> CodeInfo {
        let start = ContinuousClock.now
        do {
            let result = try await call()
            metrics.backendCall(operation, outcome: "ok", duration: start.duration(to: .now))
            return result
        } catch {
            let outcome =
                switch error {
                // Known codes only: a label whose values a backend chooses would grow without bound.
                case .rejected(let refusal): refusal.code?.rawValue ?? "other_refusal"
                case .unreachable: "unreachable"
                case .timedOut: "timeout"
                case .invalidResponse: "invalid_response"
                }
            metrics.backendCall(operation, outcome: outcome, duration: start.duration(to: .now))
            throw error
        }
    }
}
