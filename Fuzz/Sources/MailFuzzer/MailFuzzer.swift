import FuzzerDriver
import LinkDomainExercises

/// libFuzzer's entry point: any bytes through ``MailExercise`` (a relay's replies, relay URLs,
/// addresses, the email action API's body, the mail encodings). A broken promise stops the run.
@_cdecl("LLVMFuzzerTestOneInput")
public func mailFuzzTarget(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if let broken = MailExercise.run(Array(UnsafeBufferPointer(start: data, count: size))) { fatalError(broken) }
    return 0
}

/// SwiftPM links an executable's `main` to `<target>_main`; this hands control to libFuzzer's driver.
@_cdecl("MailFuzzer_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv) { data, size in mailFuzzTarget(data, size) }
}
