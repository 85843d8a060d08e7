/// The libFuzzer driver, as each fuzzer's `main` hands control to it.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt

/// Runs libFuzzer with the process's arguments and `target` as the function under test.
public func runFuzzer(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                      target: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt {
    var argc = argc
    var argv = argv
    return runFuzzerDriver(&argc, &argv, target)
}
