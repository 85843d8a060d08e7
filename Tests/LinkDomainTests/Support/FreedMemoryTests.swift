import Foundation
import Logging
import ServiceLifecycle
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Freed memory given back")
struct FreedMemoryTests {
    /// This process's resident memory, from `/proc/self/statm` (in pages).
    static func residentBytes() -> Int {
        let fields = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8))?.split(separator: " ") ?? []
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }

    @Test("pages freed below a block still in use go back to the system")
    func trim() throws {
        // 64 MB of small blocks, freed, with one block made after them kept: the heap cannot
        // shrink from its top, so only a trim gives the pages back.
        let blocks = (0..<(64 << 20) / 256).compactMap { _ in malloc(256) }
        for block in blocks { memset(block, 1, 256) }
        let kept = malloc(256)
        defer { free(kept) }
        for block in blocks { free(block) }
        let before = Self.residentBytes()
        #expect(FreedMemoryTrimmer.trim())
        let after = Self.residentBytes()
        // Half of it, leaving room for what tests running beside this one allocate meanwhile.
        #expect(before - after > 32 << 20, "resident \(before >> 20) MB before the trim, \(after >> 20) MB after")
    }

    @Test("the trimmer stops when the service group shuts down")
    func stops() async throws {
        let group = ServiceGroup(services: [FreedMemoryTrimmer(interval: .milliseconds(10))], logger: Logger(label: "test"))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            try await Task.sleep(for: .milliseconds(50))
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}
