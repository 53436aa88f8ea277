// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import XCTest

/// `pb convert` end to end: the built binary, files and pipes, no X needed.
final class ConvertCommandTests: XCTestCase {
    let runner = Runner(environment: ProcessInfo.processInfo.environment)
    var pb: String { Tools.buildDirectory + "/pb" }
    let rtf = #"{\rtf1\ansi\ansicpg1252{\fonttbl{\f0\fswiss Helvetica;}}\f0 Caf\'e9 {\b bold} \u26085?\u26412?\par second\par}"#

    func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "pb-convert-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    func testRTFToTextAndHTMLFromStandardInput() throws {
        let text = try runner.run(pb, ["convert", "--from", "rtf", "--to", "txt"], input: Array(rtf.utf8))
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertEqual(text.text, "Café bold 日本\nsecond\n")
        let html = try runner.run(pb, ["convert", "--to", "html"], input: Array(rtf.utf8))
        XCTAssertEqual(html.status, 0, html.stderr)
        XCTAssertTrue(html.text.contains("<meta charset=\"utf-8\">"), html.text)
        XCTAssertTrue(html.text.contains("<b>bold</b>"), html.text)
        XCTAssertTrue(html.text.contains("Café"), html.text)
    }

    func testRTFDBundleDirectoryRoundTrip() throws {
        let dir = try temporaryDirectory()
        try rtf.write(toFile: dir + "/in.rtf", atomically: true, encoding: .utf8)
        let toBundle = try runner.run(pb, ["convert", "--to", "rtfd-dir", "-o", dir + "/doc.rtfd", dir + "/in.rtf"])
        XCTAssertEqual(toBundle.status, 0, toBundle.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/doc.rtfd/TXT.rtf"))
        let back = try runner.run(pb, ["convert", "--to", "txt", dir + "/doc.rtfd"])
        XCTAssertEqual(back.text, "Café bold 日本\nsecond\n", back.stderr)
        let flat = try runner.run(pb, ["convert", "--to", "rtfd", "-o", dir + "/doc.flat", dir + "/doc.rtfd"])
        XCTAssertEqual(flat.status, 0, flat.stderr)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: dir + "/doc.flat"))
        XCTAssertEqual(Array(bytes.prefix(8)), Array("rtfd".utf8) + [0, 0, 0, 0], "flat RTFD starts with its magic")
        XCTAssertEqual(try runner.run(pb, ["convert", "--to", "txt", dir + "/doc.flat", "--from", "rtfd"]).text, "Café bold 日本\nsecond\n")
    }

    func testRTFDBundleDirectoryReadSkipsDotFilesAndSubdirectories() throws {
        let dir = try temporaryDirectory()
        let bundle = dir + "/in.rtfd"
        try FileManager.default.createDirectory(atPath: bundle + "/sub", withIntermediateDirectories: true)
        try #"{\rtf1 see {{\NeXTGraphic a.png \width20 \height20}\'ac} end}"#.write(toFile: bundle + "/TXT.rtf", atomically: true, encoding: .utf8)
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47]
        try Data(png).write(to: URL(fileURLWithPath: bundle + "/a.png"))
        try Data("hidden".utf8).write(to: URL(fileURLWithPath: bundle + "/.DS_Store"))
        try Data("nested".utf8).write(to: URL(fileURLWithPath: bundle + "/sub/b.png"))
        let info = try runner.run(pb, ["convert", "--info", bundle])
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(info.text.contains("Attachments: 1 (a.png)"), info.text)
        let copy = try runner.run(pb, ["convert", "--to", "rtfd-dir", "-o", dir + "/out/copy.rtfd", bundle])
        XCTAssertEqual(copy.status, 0, copy.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir + "/out/copy.rtfd").sorted(), ["TXT.rtf", "a.png"])
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: dir + "/out/copy.rtfd/a.png"))), png)
    }

    func testRTFDBundleDirectoryWriteSanitisesNames() throws {
        let dir = try temporaryDirectory()
        let html = #"see <img src="data:image/png;base64,iVBORw==" alt="..\evil.png"> and <img src="data:image/png;base64,iVBORw==" alt="_evil.png">"#
        let written = try runner.run(pb, ["convert", "--from", "html", "--to", "rtfd-dir", "-o", dir + "/doc.rtfd"], input: Array(html.utf8))
        XCTAssertEqual(written.status, 0, written.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir + "/doc.rtfd").sorted(), ["TXT.rtf", "_evil 2.png", "_evil.png"])
    }

    func testRTFDBundleErrors() throws {
        let dir = try temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/empty.rtfd", withIntermediateDirectories: true)
        let empty = try runner.run(pb, ["convert", "--to", "txt", dir + "/empty.rtfd"])
        XCTAssertEqual(empty.status, 1)
        XCTAssertTrue(empty.stderr.contains("has no TXT.rtf"), empty.stderr)
        let missing = try runner.run(pb, ["convert", "--from", "rtfd-dir", "--to", "txt", dir + "/missing.rtfd"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("is not a directory"), missing.stderr)
    }

    func testDoubleByteCodePagesDecodeThroughTheSystem() throws {
        let rtf = #"{\rtf1\ansi\ansicpg1252{\fonttbl{\f0\fnil\fcharset128 MS Gothic;}{\f1\fnil\fcharset134 SimSun;}{\f2\fnil\fcharset129 Gulim;}{\f3\fnil\fcharset136 MingLiU;}}\f0 \'82\'a0\'95\\\'81\'60 \f1 \'d6\'d0 \f2 \'c7\'d1 \f3 \'a4\'a4}"#
        let text = try runner.run(pb, ["convert", "--from", "rtf", "--to", "txt"], input: Array(rtf.utf8))
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertEqual(text.text, "あ表\u{FF5E} 中 한 中")
        let html: [UInt8] = Array("<meta charset=\"shift_jis\"><p>".utf8) + [0x82, 0xA0, 0x95, 0x5C] + Array("</p>".utf8)
        XCTAssertEqual(try runner.run(pb, ["convert", "--from", "html", "--to", "txt"], input: html).text, "あ表\n")
    }

    func testSameFormatIsPassthroughByteForByte() throws {
        let odd = Array(#"{\rtf1 {\*\unknowngroup keep me}odd   spacing\par}"#.utf8)
        XCTAssertEqual(try runner.run(pb, ["convert", "--from", "rtf", "--to", "rtf"], input: odd).stdout, odd)
    }

    func testInfoDescribesTheDocument() throws {
        let info = try runner.run(pb, ["convert", "--info", "--from", "rtf"], input: Array(rtf.utf8))
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(info.text.contains("RTF"), info.text)
        XCTAssertTrue(info.text.contains("Helvetica"), info.text)
    }

    func testBadFormatsAndMalformedInputAreClearErrors() throws {
        let unknown = try runner.run(pb, ["convert", "--to", "docx"], input: Array(rtf.utf8))
        XCTAssertEqual(unknown.status, 64)
        XCTAssertTrue(unknown.stderr.contains("unknown format 'docx'"), unknown.stderr)
        let hostile = try runner.run(pb, ["convert", "--from", "rtfd", "--to", "txt"], input: Array("rtfd".utf8) + [0, 0, 0, 0, 3, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F])
        XCTAssertEqual(hostile.status, 1)
        XCTAssertFalse(hostile.stderr.isEmpty)
        // Truncated RTF still gives its text, with a warning, and succeeds.
        let truncated = try runner.run(pb, ["convert", "--to", "txt"], input: Array(#"{\rtf1\ansi Hello {\b bold"#.utf8))
        XCTAssertEqual(truncated.status, 0, truncated.stderr)
        XCTAssertEqual(truncated.text.trimmingCharacters(in: .newlines), "Hello bold")
    }
}
