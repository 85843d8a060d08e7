import Foundation
import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Start-up pages given back, log times")
struct StartupMemoryTests {
    @Test("only read-only mappings of files are advised out")
    func mappings() {
        let mapping = StartupMemory.ReadOnlyFileMapping("55d0c2a00000-55d0c2b3c000 r-xp 00200000 08:01 1234    /usr/local/bin/linkdomain")
        #expect(mapping == StartupMemory.ReadOnlyFileMapping(start: 0x55d0c2a00000, end: 0x55d0c2b3c000))
        #expect(StartupMemory.ReadOnlyFileMapping("7f00-8f00 r--p 00000000 08:01 99 /usr/lib/x86_64-linux-gnu/libc.so.6") != nil)
        for line in [
            "7f00-8f00 rw-p 00000000 08:01 99 /usr/lib/libc.so.6", "7f00-8f00 rw-p 00000000 00:00 0 [heap]",
            "7f00-8f00 r--p 00000000 00:00 0 [vvar]", "7f00-8f00 rw-p 00000000 00:00 0", "7f00-8f00 ---p 00000000 08:01 99 /lib/x.so",
            "zz-8f00 r--p 00000000 08:01 99 /lib/x.so", "8f00-7f00 r--p 00000000 08:01 99 /lib/x.so", "",
        ] {
            #expect(StartupMemory.ReadOnlyFileMapping(Substring(line)) == nil, "\(line)")
        }
    }

    @Test("the process finds its read-only file mappings, advises them out and goes on running their code")
    func release() {
        let mappings = StartupMemory.readOnlyFileMappings()
        // The test binary itself and the C library, at least.
        #expect(mappings.count >= 2)
        // Kernels before 5.4 refuse the advice: nothing is released there, and nothing breaks.
        #expect(StartupMemory.release() <= mappings.reduce(0) { $0 + Int($1.end - $1.start) })
        // The code that runs next was just advised out: it is read back in.
        #expect(LogTime.format(second: 0) == "1970-01-01T00:00:00")
    }

    @Test("log times read as ISO 8601 with milliseconds, in UTC")
    func logTimes() throws {
        #expect(LogTime.format(second: 1_795_000_000) == "2026-11-18T11:06:40")
        let now = LogTime.now
        let parsed = try #require(try? Date(now, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)), "\(now)")
        #expect(abs(parsed.timeIntervalSinceNow) < 5)
        #expect(LogTime.milliseconds(.microseconds(1_234)) == "1.234")
        #expect(LogTime.milliseconds(.nanoseconds(999)) == "0.000")
        #expect(LogTime.milliseconds(.seconds(2)) == "2000.000")
        #expect(LogTime.milliseconds(.seconds(-1)) == "0.000")
    }
}
