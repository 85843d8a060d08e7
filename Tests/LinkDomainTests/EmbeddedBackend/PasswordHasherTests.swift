import Testing

@testable import LinkDomain
@testable import LinkDomainCore
@testable import LinkDomainStorage

@Suite("Password hashing")
struct PasswordHasherTests {
    @Test("scrypt with N=2^14, r=8, p=1 and a fresh salt; the hash verifies only its password")
    func scrypt() throws {
        let hasher = PasswordHasher()
        let first = try hasher.hash("correct horse")
        let second = try hasher.hash("correct horse")
        #expect(first.hasPrefix("scrypt$16384$8$1$"))
        #expect(first != second)  // salted
        #expect(hasher.verify("correct horse", against: first))
        #expect(!hasher.verify("correct horsE", against: first))
        #expect(!hasher.verify("correct horse", against: "scrypt$16384$8$1$bad"))
        // A hash keeps its own cost: a hasher set to another cost still verifies it.
        #expect(PasswordHasher(rounds: 1 << 10).verify("correct horse", against: first))
    }
}
