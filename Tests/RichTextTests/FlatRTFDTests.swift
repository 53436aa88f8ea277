// SPDX-License-Identifier: Apache-2.0
import XCTest

@testable import RichText

final class FlatRTFDTests: XCTestCase {
    let exampleRTF = bytes(#"{\rtf1{{\NeXTGraphic a.png \width20 \height20}\'ac}}"#)
    let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47]

    func testWorkedExampleParses() throws {
        let blob = try fixture("rtfd/worked-example-197.rtfd")
        XCTAssertEqual(blob.count, 197)
        let archive = try FlatRTFD.parse(blob)
        XCTAssertEqual(archive.files.map(\.name), ["TXT.rtf", "a.png"])
        XCTAssertEqual(archive["TXT.rtf"], exampleRTF)
        XCTAssertEqual(archive["a.png"], png)
    }

    func testPaddedVariantParses() throws {
        let blob = try fixture("rtfd/worked-example-padded-16k.rtfd")
        XCTAssertGreaterThan(blob.count, 16384)
        let archive = try FlatRTFD.parse(blob)
        XCTAssertEqual(archive["TXT.rtf"], exampleRTF)
        XCTAssertEqual(archive["a.png"], png)
    }

    func testWriterReproducesWorkedExampleByteForByte() throws {
        let written = FlatRTFD.serialize([("a.png", png), ("TXT.rtf", exampleRTF)], modificationTime: 1_700_000_000)
        XCTAssertEqual(written, try fixture("rtfd/worked-example-197.rtfd"))
    }

    func testWriterPadsLargePayloadsToAPage() throws {
        let big = [UInt8](repeating: 7, count: 5000)
        let written = FlatRTFD.serialize([("TXT.rtf", exampleRTF), ("b.bin", big)])
        let start = try XCTUnwrap(written.firstRange(of: big)?.lowerBound)
        XCTAssertEqual(start % 4096, 0)
        XCTAssertEqual(try FlatRTFD.parse(written)["b.bin"], big)
    }

    func testDocumentAttachmentGetsItsBytes() throws {
        let result = try FlatRTFD.readDocument(try fixture("rtfd/worked-example-197.rtfd"))
        XCTAssertEqual(result.document.string, "\u{FFFC}")
        let attachment = try XCTUnwrap(result.document.attachments.first)
        XCTAssertEqual(attachment.fileName, "a.png")
        XCTAssertEqual(attachment.bytes, png)
        XCTAssertEqual(attachment.width, 1)
        XCTAssertEqual(result.warnings, [])
    }

    // MARK: Hostile input (notes §7 item 20)

    func assertRejected(_ blob: [UInt8], _ kind: RichTextError.Kind = .malformed, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try FlatRTFD.parse(blob), file: file, line: line) { error in
            guard let error = error as? RichTextError else { return XCTFail("untyped error \(error)", file: file, line: line) }
            XCTAssertEqual(error.kind, kind, "\(error)", file: file, line: line)
        }
    }

    func word(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }

    func testTruncatedAtEveryLength() throws {
        let blob = try fixture("rtfd/worked-example-197.rtfd")
        for length in 0..<blob.count {
            XCTAssertThrowsError(try FlatRTFD.parse(Array(blob[..<length])), "prefix \(length)")
        }
    }

    func testLengthPastEnd() {
        assertRejected(bytes("rtfd") + word(0) + word(3) + word(1) + word(0x7FFF_FFF0) + bytes("TXT.rtf"))
    }

    func testHugeAndNegativeCounts() {
        assertRejected(bytes("rtfd") + word(0) + word(3) + word(0x7FFF_FFFF), .limitExceeded)
        assertRejected(bytes("rtfd") + word(0) + word(3) + word(0xFFFF_FFFF))
        assertRejected(bytes("rtfd") + word(0) + word(3) + word(9000))
    }

    func testBadVersion() {
        assertRejected(bytes("rtfd") + word(1) + word(3) + word(0))
    }

    func testDepthLimit() {
        // 20 nested dictionaries, each with one key "d".
        var inner: [UInt8] = word(3) + word(0)
        for _ in 0..<20 { inner = word(3) + word(1) + word(1) + bytes("d") + word(UInt32(inner.count)) + inner }
        assertRejected(bytes("rtfd") + word(0) + inner, .limitExceeded)
    }

    func dictionary(_ entries: [(String, [UInt8])]) -> [UInt8] {
        var out = bytes("rtfd") + word(0) + word(3) + word(UInt32(entries.count))
        for (key, _) in entries { out += word(UInt32(key.utf8.count)) + bytes(key) }
        for (_, value) in entries { out += word(UInt32(8 + value.count)) }
        for (_, value) in entries { out += word(1) + word(UInt32(value.count)) + value }
        return out
    }

    func testEscapingNamesAndDuplicates() throws {
        XCTAssertNoThrow(try FlatRTFD.parse(dictionary([("TXT.rtf", exampleRTF)])))
        assertRejected(dictionary([("TXT.rtf", exampleRTF), ("../x", png)]))
        assertRejected(dictionary([("TXT.rtf", exampleRTF), ("a/b", png)]))
        assertRejected(dictionary([("TXT.rtf", exampleRTF), ("", png)]))
        assertRejected(dictionary([("TXT.rtf", exampleRTF), ("a\0b", png)]))
        assertRejected(dictionary([("TXT.rtf", exampleRTF), ("TXT.rtf", png)]))
        assertRejected(dictionary([("a.png", png)]))  // no TXT.rtf
        assertRejected(dictionary([("..", png), ("TXT.rtf", exampleRTF)]))  // a single file, not a directory
    }

    func testHeaderlessPasteboardRepresentation() throws {
        let blob = Array(dictionary([("TXT.rtf", exampleRTF)]).dropFirst(8))
        XCTAssertEqual(try FlatRTFD.parse(blob)["TXT.rtf"], exampleRTF)
    }

    // MARK: Bundles

    func testBundleRoundTripSanitisesNames() throws {
        var document = AttributedDocument(paragraphs: [
            Paragraph(runs: [
                TextRun("see "),
                TextRun("\u{FFFC}", CharacterAttributes(attachment: Attachment(fileName: "../evil/x.png", mimeType: "image/png", bytes: png))),
            ])
        ])
        document.endsWithParagraphBreak = false
        let flat = FlatRTFD.writeDocument(document).bytes
        let files = try RTFDBundle.files(fromFlatRTFD: flat)
        XCTAssertEqual(files.map(\.name).sorted(), ["TXT.rtf", "_evil_x.png"])
        // A directory lists its files in another order: the flat RTFD does not depend on it.
        let reread = try FlatRTFD.readDocument(try RTFDBundle.flatRTFD(files: files.reversed(), directoryPath: "x.rtfd"))
        XCTAssertEqual(reread.document.string, "see \u{FFFC}")
        XCTAssertEqual(reread.document.attachments.first?.bytes, png)
        XCTAssertEqual(reread.document.attachments.first?.fileName, "_evil_x.png")
    }

    func testBundleNamesAreMadeUnique() throws {
        let flat = FlatRTFD.serialize([("TXT.rtf", exampleRTF), ("a\\b.png", png), ("a_b.png", png)])
        XCTAssertEqual(try RTFDBundle.files(fromFlatRTFD: flat).map(\.name), ["TXT.rtf", "a_b.png", "a_b 2.png"])
    }

    func testSanitizedNames() {
        XCTAssertEqual(RTFDBundle.sanitizedName(".."), "attachment")
        XCTAssertEqual(RTFDBundle.sanitizedName(""), "attachment")
        XCTAssertEqual(RTFDBundle.sanitizedName("a/b\0c"), "a_b_c")
        XCTAssertEqual(RTFDBundle.sanitizedName("Pasted Graphic.png"), "Pasted Graphic.png")
    }

    func testBundleWithoutTextIsAnError() throws {
        XCTAssertThrowsError(try RTFDBundle.flatRTFD(files: [("a.png", png)], directoryPath: "empty.rtfd")) { error in
            XCTAssertEqual("\(error)", "RTFD bundle: empty.rtfd has no TXT.rtf")
        }
        XCTAssertThrowsError(try RTFDBundle.flatRTFD(files: [], directoryPath: "empty.rtfd"))
    }
}
