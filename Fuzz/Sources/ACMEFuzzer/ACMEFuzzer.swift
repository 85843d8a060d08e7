import FuzzerDriver
import LinkDomainCoreExercises

/// libFuzzer's entry point: any bytes as a TLS connection's first bytes and as a CA's answer,
/// through ``ACMEExercise``. A broken promise stops the run.
@_cdecl("LLVMFuzzerTestOneInput")
public func acmeFuzzTarget(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if let broken = ACMEExercise.run(Array(UnsafeBufferPointer(start: data, count: size))) { fatalError(broken) }
    return 0
}

/// SwiftPM links an executable's `main` to `<target>_main`; this hands control to libFuzzer's driver.
@_cdecl("ACMEFuzzer_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, size in acmeFuzzTarget(data, size) }
}
