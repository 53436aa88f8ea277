// SPDX-License-Identifier: Apache-2.0
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


/// What every read document must satisfy: warnings stay capped (no storm) and merged cells span at least one
/// row and column.
func checkRead(_ result: ReadResult, _ what: String) {
    invariant(result.warnings.count <= 50, "\(what): \(result.warnings.count) warnings")
    for paragraph in result.document.paragraphs {
        guard let cell = paragraph.attributes.tableCell else { continue }
        invariant(cell.columnSpan >= 1 && cell.rowSpan >= 1, "\(what): a cell spans \(cell.columnSpan)×\(cell.rowSpan)")
    }
}

func fuzzOneInput(_ input: [UInt8]) {
    switch target {
    case .rtf:
        let result = RTFReader.read(input)
        checkRead(result, "RTF")
        // Writing what was read must not trap either, and the writers' output must read back.
        checkRead(RTFReader.read(RTFWriter.write(result.document).bytes), "RTF written from RTF")
        _ = HTMLWriter.write(result.document)
        _ = PlainTextWriter.write(result.document)
    case .html:
        let result = HTMLReader.read(input)
        checkRead(result, "HTML")
        checkRead(HTMLReader.read(HTMLWriter.write(result.document).bytes), "HTML written from HTML")
        checkRead(RTFReader.read(RTFWriter.write(result.document).bytes), "RTF written from HTML")
    case .rtfd:
        if let result = try? FlatRTFD.readDocument(input) {
            _ = FlatRTFD.writeDocument(result.document)
        }
        _ = try? FlatRTFD.parse(input)
    }
}

FuzzMain.run(fuzzOneInput)
