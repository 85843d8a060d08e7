import Dispatch
import FuzzerDriver
import LinkDomainExercises

/// The exercise, made once: a store with a signed-in user the inputs act on.
nonisolated(unsafe) private var exercise: IdentityToolkitExercise?

/// Runs `body` to completion from libFuzzer's synchronous callback.
private func blocking(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        await body()
        done.signal()
    }
    done.wait()
}

/// libFuzzer's entry point: any bytes through ``IdentityToolkitExercise`` (the checked body decoder
/// and the account operations over SQLite). A trap or a hang stops the run.
@_cdecl("LLVMFuzzerTestOneInput")
public func identityToolkitFuzzTarget(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if exercise == nil {
        nonisolated(unsafe) var made: IdentityToolkitExercise?
        blocking { made = try? await IdentityToolkitExercise() }
        guard let made else { fatalError("the exercise's store could not be created") }
        exercise = made
    }
    guard let current = exercise else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    blocking { await current.run(bytes) }
    return 0
}

/// SwiftPM links an executable's `main` to `<target>_main`; this hands control to libFuzzer's driver.
@_cdecl("IdentityToolkitFuzzer_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, size in identityToolkitFuzzTarget(data, size) }
}
