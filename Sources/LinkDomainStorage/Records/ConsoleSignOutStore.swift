import LinkDomainCore

/// How many times each console actor has signed out, in the shared database: a session sealed
/// at an earlier count has ended on every replica, even in a copy of its cookie taken before.
public protocol ConsoleSignOutStore: Sendable {
    /// `actor`'s sign-outs so far (0 when none).
    func consoleSignOuts(actor: String) async throws(StoreError) -> Int64
    /// Ends every session of `actor`: one more sign-out.
    func recordConsoleSignOut(actor: String) async throws(StoreError)
}
