import LinkDomainCore
import LinkDomainStorage
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// Gives the memory a burst of connections freed back to the system. glibc keeps what it frees in
/// each thread's arena for the next allocation, so after 256 connections close their buffers
/// stay counted in the resident memory (about 3 MB, BENCHMARKS.md) until the next burst.
/// `malloc_trim` returns the free pages; once every half minute it costs a walk of the arenas'
/// free lists and nothing on the request path, and nothing at all while the server is quiet.
struct FreedMemoryTrimmer: Service {
    var interval: Duration = .seconds(30)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            // Once more after the last burst, then nothing while the server is quiet.
            while !Task.isCancelled {
                await ServerActivity.shared.waitUntilActive()
                guard (try? await Task.sleep(for: interval)) != nil else { return }
                Self.trim()
            }
        }
    }

    /// glibc's `malloc_trim`, looked up at run time: Swift's Glibc module does not declare it, and
    /// other C libraries do not have it.
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
            return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
            return nil
        #endif
    }()

    /// Returns free heap pages to the system; false when none could be (or the C library cannot).
    @discardableResult
    static func trim() -> Bool {
        mallocTrim?(0) == 1
    }
}
