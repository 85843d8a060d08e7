import LinkDomainCore
import LinkDomainStorage
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard error for log lines. Request lines are gathered and written together, at most
/// ``delay`` after the first of them or once ``limit`` bytes wait; every other line is written at
/// once, after whatever waits, so lines keep their order. One write system call per request line
/// halved the hot paths' throughput at the default log level (BENCHMARKS.md). What waits is
/// written at exit too; a process killed outright loses at most ``delay`` of request lines.
final class BufferedLogOutput: Sendable {
    static let standardError = BufferedLogOutput(descriptor: 2)
    static let delay = DispatchTimeInterval.milliseconds(50)
    static let limit = 32 * 1024

    private let descriptor: Int32
    private let waiting = Mutex<(bytes: [UInt8], flushScheduled: Bool)>(([], false))

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Writes `line`, now or (`gather`) with the lines around it.
    func write(_ line: String, gather: Bool) {
        let (ready, schedule): ([UInt8], Bool) = waiting.withLock { state in
            state.bytes += line.utf8
            if gather && state.bytes.count < Self.limit {
                defer { state.flushScheduled = true }
                return ([], !state.flushScheduled)
            }
            defer { state.bytes.removeAll(keepingCapacity: true) }
            return (state.bytes, false)
        }
        if !ready.isEmpty { writeAll(ready) }
        if schedule { DispatchQueue.global().asyncAfter(deadline: .now() + Self.delay) { self.flush() } }
    }

    /// Writes whatever waits.
    func flush() {
        let ready = waiting.withLock { state in
            state.flushScheduled = false
            defer { state.bytes.removeAll(keepingCapacity: true) }
            return state.bytes
        }
        if !ready.isEmpty { writeAll(ready) }
    }

    private func writeAll(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count, let base = buffer.baseAddress {
                let written = systemWrite(descriptor, base + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return  // standard error is gone: nothing else can be told
                }
            }
        }
    }
}

/// POSIX `write`, named apart from ``BufferedLogOutput/write(_:gather:)``.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.write(descriptor, bytes, count)
    #elseif canImport(Musl)
        Musl.write(descriptor, bytes, count)
    #else
        Darwin.write(descriptor, bytes, count)
    #endif
}
