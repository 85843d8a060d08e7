extension UInt8 {
    /// The byte with an ASCII capital lowered, every other byte as it is: no Unicode case mapping.
    @inlinable
    package var asciiLowercased: UInt8 { self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z") ? self | 0x20 : self }
}

extension StringProtocol {
    /// Whether every UTF-8 byte passes `isAllowed`, read from contiguous storage: `utf8.allSatisfy`
    /// goes through the generic view, tens of instructions a byte, and these checks run on every
    /// redirect and log line.
    @inlinable
    package func everyUTF8Byte(_ isAllowed: (UInt8) -> Bool) -> Bool {
        let fast = utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where !isAllowed(byte) { return false }
            return true
        }
        return fast ?? utf8.allSatisfy(isAllowed)
    }

    /// Whether any UTF-8 byte passes `isWanted` (see ``everyUTF8Byte(_:)``).
    @inlinable
    package func someUTF8Byte(_ isWanted: (UInt8) -> Bool) -> Bool {
        !everyUTF8Byte { !isWanted($0) }
    }
}
