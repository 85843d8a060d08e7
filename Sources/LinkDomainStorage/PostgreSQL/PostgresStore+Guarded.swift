import LinkDomainCore
import PostgresNIO

/// How every PostgreSQL call is made: within a deadline, refused at once while the database is
/// known to be away, its failures as ``StoreError``s (never with user data).
extension PostgresStore {
    /// Runs a database call within the store's deadline (unless not `bounded`), turning its failures into
    /// ``StoreError``s; while the probe finds the database away, refuses at once (`failFast`).
    @discardableResult
    package func guarded<T: Sendable>(bounded: Bool = true, failFast: Bool = true, _ work: @Sendable () async throws -> T) async throws(StoreError) -> T {
        if failFast, health.isDown { throw .unavailable }
        do {
            guard bounded else { return try await work() }
            // The deadline's task group ends (its tasks done or cancelled) before this returns.
            return try await withoutActuallyEscaping(work) { escapable in try await withDeadline(deadline, escapable) }
        } catch {
            throw Self.storeError(error)
        }
    }

    /// A failure as the store reports it: a transaction's by what failed in it (the closure's own
    /// error, else BEGIN's or COMMIT's).
    package static func storeError(_ error: any Error) -> StoreError {
        switch error {
        case let error as StoreError:
            return error
        case let error as PostgresTransactionError:
            guard let cause = error.closureError ?? error.beginError ?? error.commitError else { return .database("PostgresTransactionError") }
            return storeError(cause)
        case let error as PSQLError:
            if error.serverInfo?[.sqlState] == "23505" {
                let constraint = error.serverInfo?[.constraintName] ?? ""
                if constraint.contains("email") { return .emailExists }
                if constraint.contains("phone") { return .phoneNumberExists }
                if constraint.contains("short_links") { return .duplicate }
            }
            return .database("PostgreSQL error \(error.serverInfo?[.sqlState] ?? String(describing: error.code))")
        default:
            return .database(String(describing: type(of: error)))
        }
    }
}
