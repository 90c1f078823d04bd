import CaptureFuzzHarness

/// libFuzzer's entry point: one input. A failed invariant becomes a crash, which libFuzzer saves.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let problems = FuzzHarness.run(.transferFile, UnsafeBufferPointer(start: data, count: size))
    if !problems.isEmpty { fatalError(problems.joined(separator: "; ")) }
    return 0
}
