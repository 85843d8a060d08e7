import LinkDomainCore
import PostgresNIO
import Synchronization

extension PostgresStore: BudgetStore {
    public func countTake(_ key: String, windowSeconds: Int64, now: Int64) async throws(StoreError) -> BudgetCount {
        let window = max(1, windowSeconds)
        let start = now - now.remainderReportingOverflow(dividingBy: window).partialValue
        let count: BudgetCount = try await guarded {
            // One statement: replicas taking at once each get their own count. A new window keeps
            // the last one's count as `previous` when it is the one just before.
            for try await (current, previous) in try await client.query(
                """
                INSERT INTO budget_windows (key, window_start, count, previous) VALUES (\(key), \(start), 1, 0)
                ON CONFLICT (key) DO UPDATE SET
                    previous = CASE WHEN budget_windows.window_start = EXCLUDED.window_start THEN budget_windows.previous
                                    WHEN budget_windows.window_start = EXCLUDED.window_start - \(window) THEN budget_windows.count
                                    ELSE 0 END,
                    count = CASE WHEN budget_windows.window_start = EXCLUDED.window_start THEN budget_windows.count + 1 ELSE 1 END,
                    window_start = EXCLUDED.window_start
                RETURNING count, previous
                """, logger: logger
            ).decode((Int64, Int64).self) {
                return BudgetCount(current: current, previous: previous)
            }
            return BudgetCount(current: 1, previous: 0)
        }
        // No budget's window is longer than an hour: ended ones are swept now and then, not on every take.
        if budgetTakes.add(1, ordering: .relaxed).newValue % 1000 == 0 {
            _ = try? await guarded { try await client.query("DELETE FROM budget_windows WHERE window_start < \(now - 7200)", logger: logger) }
        }
        return count
    }
}
