import LinkDomainCore
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Free space on a file system, as an unprivileged writer may use it.
package enum FreeSpace {
    /// Bytes free for unprivileged writers on the file system holding `path`; nil when it cannot be
    /// read (the path is gone) or does not fit in 64 bits.
    package static func bytes(at path: String) -> UInt64? {
        var status = statvfs()
        guard statvfs(path, &status) == 0 else { return nil }
        let (total, overflow) = UInt64(status.f_bavail).multipliedReportingOverflow(by: UInt64(status.f_frsize))
        return overflow ? nil : total
    }
}
