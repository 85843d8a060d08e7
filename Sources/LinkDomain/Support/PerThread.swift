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
        // Only ever a `Value` is put in a slot (below): the downcast is checked in debug builds only.
        if let slot = pthread_getspecific(key) { return unsafeDowncast(Unmanaged<PerThreadSlot>.fromOpaque(slot).takeUnretainedValue().value, to: Value.self) }
        let made = make()
        // Failing (no memory for the thread's keys), the value would be made again on every read.
        let stored = pthread_setspecific(key, Unmanaged.passRetained(PerThreadSlot(owner: self, value: made)).toOpaque())
        precondition(stored == 0, "cannot keep a thread's value (\(stored))")
        return made
    }
}

/// What a thread's slot of a ``PerThread`` holds: its value, and the ``PerThread``, kept alive
/// while any thread has a slot. Not generic (nor nested in the generic class, which would make it
/// so): a generic class's metadata is made at run time, one more entry in the cache every generic
/// lookup of the process searches.
private final class PerThreadSlot: Sendable {
    let owner: any AnyObject & Sendable
    let value: any AnyObject & Sendable

    init(owner: any AnyObject & Sendable, value: any AnyObject & Sendable) {
        self.owner = owner
        self.value = value
    }
}
