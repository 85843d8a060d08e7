import FuzzerDriver
import LinkDomainCoreExercises

/// libFuzzer's entry point: any bytes, read as UTF-8 (with replacement), through ``LinkExercise``.
/// Besides crashes and hangs, a redirect the policy refuses stops the run.
@_cdecl("LLVMFuzzerTestOneInput")
public func linkParserFuzzTarget(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let broken = LinkExercise.run(text) { fatalError(broken) }
    return 0
}

/// SwiftPM links an executable's `main` to `<target>_main`; this hands control to libFuzzer's driver.
@_cdecl("LinkParserFuzzer_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, size in linkParserFuzzTarget(data, size) }
}
