import NIOPosix

/// One `Value` per thread (an event loop's), made there on first use: what a thread's answers
/// keep for its later answers, read and written with no lock.
final class PerThread<Value: AnyObject & Sendable>: Sendable {
    private let threads = ThreadSpecificVariable<Value>()
    private let make: @Sendable () -> Value

    init(_ make: @escaping @Sendable () -> Value) {
        self.make = make
    }

    /// This thread's.
    var current: Value {
        if let known = threads.currentValue { return known }
        let made = make()
        threads.currentValue = made
        return made
    }
}
