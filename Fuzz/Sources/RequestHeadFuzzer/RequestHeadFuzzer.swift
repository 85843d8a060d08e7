import FuzzerDriver
import LinkDomainExercises

/// libFuzzer's entry point: any bytes as a connection's first bytes, through ``RequestHeadExercise``
/// (the event loop's request-head reader, checked against NIO's HTTP decoder). A broken promise
/// stops the run.
@_cdecl("LLVMFuzzerTestOneInput")
public func requestHeadFuzzTarget(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if let broken = RequestHeadExercise.run(Array(UnsafeBufferPointer(start: data, count: size))) { fatalError(broken) }
    return 0
}

/// SwiftPM links an executable's `main` to `<target>_main`; this hands control to libFuzzer's driver.
@_cdecl("RequestHeadFuzzer_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, size in requestHeadFuzzTarget(data, size) }
}
