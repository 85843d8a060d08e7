#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One `Value` per thread (an event loop's), made there on first use: what a thread's answers
/// keep for its later answers, read and written with no lock.
///
/// A POSIX thread-specific key of its own rather than NIO's `ThreadSpecificVariable`, whose read
/// casts the value it finds (`as!`) on every call: a short link's click reads five of these,
/// which cost 1,040 of its 21,464 instructions that way and about 350 this way. The value is kept
/// with this object (as NIO does), so the key outlives every thread's value and each is released
/// when its thread ends.
final class PerThread<Value: AnyObject & Sendable>: Sendable {
    /// What a thread's slot holds: its value, and this object, kept alive while any thread has one.
    private final class Slot: Sendable {
        let owner: PerThread
        let value: Value

        init(owner: PerThread, value: Value) {
            self.owner = owner
            self.value = value
        }
    }

    private let key: pthread_key_t
    private let make: @Sendable () -> Value

    init(_ make: @escaping @Sendable () -> Value) {
        var key = pthread_key_t()
        // A thread that ends releases its slot, and with it its value.
        let created = pthread_key_create(&key) { slot in
            #if canImport(Darwin)
                Unmanaged<AnyObject>.fromOpaque(slot).release()
            #else
                guard let slot else { return }
                Unmanaged<AnyObject>.fromOpaque(slot).release()
            #endif
        }
        precondition(created == 0, "no thread-specific key left (\(created))")
        self.key = key
        self.make = make
    }

    deinit {
        // Only once no thread holds a slot: each slot keeps this object alive.
        pthread_key_delete(key)
    }

    /// This thread's.
    var current: Value {
        if let slot = pthread_getspecific(key) { return Unmanaged<Slot>.fromOpaque(slot).takeUnretainedValue().value }
        let made = make()
        pthread_setspecific(key, Unmanaged.passRetained(Slot(owner: self, value: made)).toOpaque())
        return made
    }
}
