/// libFuzzer's per-input hook. The fuzzer runtime's own `main` refers to it, so it must exist even
/// though `main.swift` starts the driver with the same callback.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTarget.selected.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
