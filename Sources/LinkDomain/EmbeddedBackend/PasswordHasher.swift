import Crypto
import CryptoExtras
import Foundation
import LinkDomainCore
import LinkDomainStorage
import NIOCore
import NIOPosix
import Synchronization

/// Hashes passwords with scrypt (memory-hard), storing parameters and salt with the hash so they
/// can be raised later without invalidating existing hashes: `scrypt$N$r$p$salt$hash` (base64).
struct PasswordHasher: Sendable {
    /// 2^14 rounds × block size 8 uses 16 MiB per hash, the interactive-login setting scrypt's authors recommend.
    static let defaultRounds = 1 << 14
    var rounds = PasswordHasher.defaultRounds
    var blockSize = 8
    var parallelism = 1

    func hash(_ password: String) throws -> String {
        var salt = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = generator.next() }
        let key = try derive(password, salt: salt, rounds: rounds, blockSize: blockSize, parallelism: parallelism)
        return [
            "scrypt", String(rounds), String(blockSize), String(parallelism),
            Data(salt).base64EncodedString(), Data(key).base64EncodedString(),
        ].joined(separator: "$")
    }

    /// Whether `password` matches `stored`: this backend's own scrypt hashes, or an imported one (``PasswordFormats``).
    func verify(_ password: String, against stored: String) -> Bool {
        if let imported = PasswordFormats.verify(password, against: stored) { return imported }
        let parts = stored.split(separator: "$").map(String.init)
        guard parts.count == 6, parts[0] == "scrypt", let rounds = Int(parts[1]), let blockSize = Int(parts[2]),
            let parallelism = Int(parts[3]), let salt = Data(base64Encoded: parts[4]), let expected = Data(base64Encoded: parts[5]),
            let key = try? derive(password, salt: Array(salt), rounds: rounds, blockSize: blockSize, parallelism: parallelism)
        else { return false }
        // Constant-time comparison: the time taken says nothing about how much matched.
        return ConstantTime.equal(key, expected)
    }

    private func derive(_ password: String, salt: [UInt8], rounds: Int, blockSize: Int, parallelism: Int) throws -> [UInt8] {
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8), salt: salt, outputByteCount: 32, rounds: rounds, blockSize: blockSize,
            parallelism: parallelism, maxMemory: 64 * 1024 * 1024)
        return key.withUnsafeBytes { Array($0) }
    }
}

/// Where password hashes are computed: a few threads of their own, so that a burst of sign-ins
/// queues here instead of stalling the event loops that answer everything else (`/healthz`, pages,
/// redirects). At most ``maximumQueued`` hashes wait; past that a sign-in is refused at once (429).
///
/// No one may take the threads from everyone else: each check names who it is for (the client's
/// address), and waiting checks are taken in turn, one per party, so a client with many checks
/// waiting delays its own, while everyone else's waits behind at most one of them.
final class PasswordHashingPool: Sendable {
    /// At most 64 checks per thread wait (a second or two of app sign-ins): past that, refusing at
    /// once beats making everyone wait longer.
    static let shared = PasswordHashingPool(threads: PasswordHashingPool.threads, maximumQueued: 64 * PasswordHashingPool.threads)
    /// The hashing threads: one core is always left to the event loops.
    static let threads = max(1, min(8, System.coreCount - 1))

    private let pool: NIOThreadPool
    private let threads: Int
    private let maximumQueued: Int
    private let state = Mutex(Turns<CheckedContinuation<Bool, Never>>())

    /// Who runs and who waits, by party, taken in turn (a waiter is resumed at its turn).
    struct Turns<Waiter> {
        private(set) var running = 0
        private(set) var waiting = 0
        private var queues: [String: [Waiter]] = [:]
        /// The parties with checks waiting, in the order their turns come.
        private var order: [String] = []

        /// Admits a check for `party`: true when it may run at once; false when it was queued
        /// (`continuation` is resumed at its turn); nil when too many already wait.
        mutating func admit(_ party: String, threads: Int, maximumQueued: Int, continuation: Waiter) -> Bool? {
            if running < threads {
                running += 1
                return true
            }
            guard waiting < maximumQueued else { return nil }
            waiting += 1
            if queues[party, default: []].isEmpty { order.append(party) }
            queues[party, default: []].append(continuation)
            return false
        }

        /// A check finished: the next party's oldest check takes its thread.
        mutating func finished() -> Waiter? {
            guard !order.isEmpty else {
                running -= 1
                return nil
            }
            let party = order.removeFirst()
            var queue = queues[party] ?? []
            let next = queue.removeFirst()
            waiting -= 1
            if queue.isEmpty {
                queues[party] = nil
            } else {
                queues[party] = queue
                order.append(party)  // its next check waits for every other party's turn
            }
            return next
        }
    }

    init(threads: Int, maximumQueued: Int) {
        pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
        self.threads = threads
        self.maximumQueued = maximumQueued
    }

    /// Runs `work` on the pool in `party`'s turn (empty: this service itself);
    /// ``IdentityToolkitError/tooManyAttempts`` when too many already wait.
    func run<Value: Sendable>(for party: String = "", _ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        guard await turn(for: party) else { throw IdentityToolkitError.tooManyAttempts }
        defer { endTurn() }
        return try await pool.runIfActive(work)
    }

    /// Waits for `party`'s turn on a thread: true then, false at once when too many already wait.
    private func turn(for party: String) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let admitted = state.withLock { $0.admit(party, threads: threads, maximumQueued: maximumQueued, continuation: continuation) }
            // Queued (false): resumed with true at its turn.
            if let admitted, !admitted { return }
            continuation.resume(returning: admitted != nil)
        }
    }

    /// A check finished: its thread goes to the next party's oldest waiting check.
    private func endTurn() {
        state.withLock { $0.finished() }?.resume(returning: true)
    }
}

/// Password hashing as the account operations use it: off the event loop, and with the same cost
/// whether or not an account exists, so timing does not tell which addresses are registered.
struct PasswordService: Sendable {
    let hasher: PasswordHasher
    let pool: PasswordHashingPool

    /// A hash of a random password at the configured cost, made once per cost: what an unknown
    /// address's password is checked against.
    private static let decoys = Mutex<[Int: String]>([:])

    func hash(_ password: String) async throws -> String {
        let hasher = hasher
        return try await pool.run { try hasher.hash(password) }
    }

    /// Whether `password` matches `stored`; with no stored hash (no account, or no password), the
    /// same work is done against a decoy and the answer is false. `party`: who the check is for
    /// (the client), held to its turn on the threads.
    func verify(_ password: String, against stored: String?, for party: String = "") async throws -> Bool {
        let hasher = hasher
        let rounds = hasher.rounds
        let decoy = Self.decoys.withLock { $0[rounds] }
        return try await pool.run(for: party) {
            if let stored { return hasher.verify(password, against: stored) }
            if let decoy {
                _ = hasher.verify(password, against: decoy)
            } else {
                // Making the decoy costs one derivation, as checking against it would.
                let made = try hasher.hash(RandomToken.make(bytes: 16))
                Self.decoys.withLock { $0[rounds] = made }
            }
            return false
        }
    }
}
