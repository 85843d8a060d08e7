import LinkDomainCore
import LinkDomainStorage
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Gives back the pages of the program's own files (its code and read-only data, and the
/// libraries') that starting up touched and serving never touches again: configuration, argument
/// parsing, migrations, template parsing and the TLS and JWT set-up are most of the code, and a
/// running link domain uses a small part of it. Without this, those clean pages stay counted in
/// its resident memory until the host runs short (BENCHMARKS.md: about 24 MB of 44).
///
/// Pages are only advised out, never discarded: a page needed again is read back from the page
/// cache on its next use. Writable mappings (relocated data, copied on write) are left alone.
public enum StartupMemory {
    /// Linux's `MADV_PAGEOUT` (5.4 and later): reclaim these pages now. Older kernels refuse it,
    /// and nothing changes.
    private static let pageOut: Int32 = 21

    /// Advises out every read-only file mapping; the bytes they covered.
    @discardableResult
    public static func release() -> Int {
        #if os(Linux)
            var released = 0
            for mapping in readOnlyFileMappings() {
                guard let start = UnsafeMutableRawPointer(bitPattern: mapping.start) else { continue }
                if madvise(start, Int(mapping.end - mapping.start), pageOut) == 0 { released += Int(mapping.end - mapping.start) }
            }
            return released
        #else
            return 0
        #endif
    }

    /// This process's read-only file mappings, from `/proc/self/maps` (none where it cannot be read).
    static func readOnlyFileMappings() -> [ReadOnlyFileMapping] {
        guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) else { return [] }
        return maps.split(separator: "\n").compactMap(ReadOnlyFileMapping.init)
    }

    /// A line of `/proc/self/maps` (`start-end perms offset dev inode path`) for a file mapped
    /// without write access.
    struct ReadOnlyFileMapping: Equatable {
        var start: UInt
        var end: UInt

        init(start: UInt, end: UInt) {
            self.start = start
            self.end = end
        }

        init?(_ line: Substring) {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            // The path follows the inode after a run of spaces, which the last split keeps.
            guard fields.count == 6, fields[5].drop(while: { $0 == " " }).hasPrefix("/"), fields[1].utf8.count == 4,
                fields[1].utf8.first == UInt8(ascii: "r"), fields[1].utf8.dropFirst().first == UInt8(ascii: "-")
            else { return nil }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let start = UInt(bounds[0], radix: 16), let end = UInt(bounds[1], radix: 16), end > start else { return nil }
            self.start = start
            self.end = end
        }
    }
}
