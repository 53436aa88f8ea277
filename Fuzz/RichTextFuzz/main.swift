// libFuzzer entry point for the RichText readers. The reader is chosen by RICHTEXT_FUZZ_TARGET
// (rtf, html or rtfd; default rtf). Built with -DFUZZING and -sanitize=fuzzer it is a libFuzzer binary;
// built plainly it replays the files named on its command line. See docs/fuzzing.md.
import Foundation
import RichText

enum FuzzTarget: String {
    case rtf, html, rtfd
}

nonisolated(unsafe) let target = FuzzTarget(rawValue: ProcessInfo.processInfo.environment["RICHTEXT_FUZZ_TARGET"] ?? "rtf") ?? .rtf

#if FUZZING
/// libFuzzer's driver (FuzzerDriver.cpp); SwiftPM makes this file's top-level code `main`, so we call it here.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
#endif

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    switch target {
    case .rtf:
        let result = RTFReader.read(input)
        // Writing what was read must not trap either, and the writers' output must read back.
        _ = RTFReader.read(RTFWriter.write(result.document).bytes)
        _ = HTMLWriter.write(result.document)
        _ = PlainTextWriter.write(result.document)
    case .html:
        let result = HTMLReader.read(input)
        _ = HTMLReader.read(HTMLWriter.write(result.document).bytes)
        _ = RTFWriter.write(result.document)
    case .rtfd:
        if let result = try? FlatRTFD.readDocument(input) {
            _ = FlatRTFD.writeDocument(result.document)
        }
        _ = try? FlatRTFD.parse(input)
    }
    return 0
}

#if FUZZING
var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, { data, size in fuzzOneInput(data, size) }))
#else
// Built without libFuzzer: replay the files named on the command line (crash reproducers, corpus checks).
for path in CommandLine.arguments.dropFirst() {
    guard let data = FileManager.default.contents(atPath: path) else {
        print("cannot read \(path)")
        exit(1)
    }
    let bytes = [UInt8](data)
    _ = bytes.withUnsafeBufferPointer { fuzzOneInput($0.baseAddress, $0.count) }
    print("ok \(path)")
}
#endif
