// libFuzzer entry point for the RichText readers. The reader is chosen by RICHTEXT_FUZZ_TARGET
// (rtf, html or rtfd; default rtf). Built with -DFUZZING and -sanitize=fuzzer it is a libFuzzer binary;
// built plainly it replays the files named on its command line. See docs/fuzzing.md.
import Foundation
import FuzzSupport
import RichText

enum FuzzTarget: String {
    case rtf, html, rtfd
}

let target = FuzzTarget(rawValue: ProcessInfo.processInfo.environment["RICHTEXT_FUZZ_TARGET"] ?? "rtf") ?? .rtf


func fuzzOneInput(_ input: [UInt8]) {
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
}

FuzzMain.run(fuzzOneInput)
