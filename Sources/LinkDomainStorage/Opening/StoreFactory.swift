import LinkDomainCore
import Logging
import ServiceLifecycle

/// The store the configuration names: PostgreSQL when `storage.postgresURL` is set (shared by
/// replicas), else the SQLite file.
public struct OpenedStore: Sendable {
    public let store: any AuthStore & LinkStore
    /// The outgoing mail queue, in the same database.
    public let mailQueue: any MailQueueStore
    /// What the console and the listing APIs read and change, in the same database.
    public let admin: any LinkAdminStore & MailAdminStore
    /// The console's sign-outs, in the same database.
    public let signOuts: any ConsoleSignOutStore
    /// Ordered certificates, their account and the ordering lease, in the same database.
    public let acme: any ACMEStore
    /// Budgets every replica shares (PostgreSQL); nil when one process has the database (SQLite).
    public let budgets: (any BudgetStore)?
    /// What must run for the store to work (PostgreSQL's connection pool), if anything.
    public let service: (any Service)?
    /// What must happen once it runs, before the first request (PostgreSQL's migrations).
    public let prepare: (@Sendable () async throws -> Void)?
    /// Whether the database answers, as the probe (``DatabaseProbe``) last found.
    public var health = DependencyHealth()

    public static func open(_ configuration: LinkDomainConfiguration, logger: Logger) throws(StoreError) -> OpenedStore {
        switch configuration.storage {
        case .postgres(let url):
            let store = try PostgresStore(url: url, deadline: .seconds(configuration.storageTimeoutSeconds), logger: logger)
            return OpenedStore(
                store: store, mailQueue: store, admin: store, signOuts: store, acme: store, budgets: store, service: store,
                prepare: { try await store.migrate() }, health: store.health)
        case .sqlite(let path):
            let store = try SQLiteStore(path: path)
            return OpenedStore(store: store, mailQueue: store, admin: store, signOuts: store, acme: store, budgets: nil, service: nil, prepare: nil)
        }
    }

    /// Runs `body` with the store working, for commands that are not the server (`import`).
    public func withRunning<T: Sendable>(_ body: @Sendable (any AuthStore & LinkStore) async throws -> T) async throws -> T {
        guard let service else { return try await body(store) }
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await service.run()
                return nil
            }
            defer { group.cancelAll() }
            try await prepare?()
            return try await body(store)
        }
    }
}
