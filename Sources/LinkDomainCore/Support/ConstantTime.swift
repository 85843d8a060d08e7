/// Comparisons whose time does not depend on where two secrets differ.
package enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes. The time depends only on their lengths (a key's length is no secret).
    /// Inlined into the caller, which knows the collections' types (unspecialized across modules
    /// each byte would be read through a witness table).
    @inlinable
    package static func equal(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
