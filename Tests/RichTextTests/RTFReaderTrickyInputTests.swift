// SPDX-License-Identifier: Apache-2.0
import XCTest

@testable import RichText

/// The twenty tricky inputs of notes §7 and the "also add" list.
final class RTFReaderTrickyInputTests: XCTestCase {
    func test01ShiftJISWithBackslashTrailByte() {
        let r = readRTF(#"{\rtf1\ansi\ansicpg932{\fonttbl{\f0\fnil\fcharset128 MS Gothic;}}\f0 \'82\'a0\'83\'5c\'95\\}"#)
        XCTAssertEqual(r.document.string, "あソ表")
        XCTAssertEqual(runs(r.document).first?.attributes.fontFamily, "MS Gothic")
    }

    func test02CocoaUnbracedFontTable() {
        let r = readRTF(
            #"{\rtf1\ansi\ansicpg1252\cocoartf2822{\fonttbl\f0\fswiss\fcharset0 Helvetica;\f1\fnil\fcharset128 HiraginoSans-W3;}\f0 A \f1 \'82\'a0\f0 B}"#
        )
        XCTAssertEqual(r.document.string, "A あB")
        XCTAssertEqual(r.declaredFonts, ["Helvetica", "HiraginoSans-W3"])
        XCTAssertEqual(runs(r.document).map(\.attributes.fontFamily), ["Helvetica", "HiraginoSans-W3", "Helvetica"])
    }

    func test03SurrogatePair() {
        XCTAssertEqual(readRTF(#"\uc1 X\u-10179?\u-8704?Y"#).document.string, "X😀Y")
    }

    func test04UnpairedSurrogate() {
        let text = readRTF(#"\u-10179?Z"#).document.string
        XCTAssertEqual(text, "\u{FFFD}Z")
    }

    func test05UcIsGroupScoped() {
        XCTAssertEqual(readRTF(#"{\uc2\u8364\'80\'80}Z{\u8364\'80 W}"#).document.string, "€Z€ W")
    }

    func test06FallbackSkipStopsAtBrace() {
        let r = readRTF(#"\uc1\u8364{\b x}y"#)
        XCTAssertEqual(r.document.string, "€xy")
        XCTAssertEqual(runs(r.document).map(\.text), ["€", "x", "y"])
        XCTAssertEqual(runs(r.document).map(\.attributes.bold), [false, true, false])
    }

    func test07BinHidesBraces() {
        XCTAssertEqual(readRTF(#"A{\*\foo\bin5 }}}}}B}C"#).document.string, "AC")
    }

    func test08BinClamped() {
        let r = readRTF(#"A\bin4294967295 xyz}"#)
        XCTAssertEqual(r.document.string, "A")
        XCTAssertFalse(r.warnings.isEmpty)
        XCTAssertEqual(readRTF(#"A\bin-5 B"#).document.string, "AB")
    }

    func test09HundredThousandNestedGroups() {
        let input = String(repeating: "{", count: 100_000) + "deep" + String(repeating: "}", count: 100_000)
        let r = readRTF(input)
        XCTAssertEqual(r.document.string, "deep")
        XCTAssertEqual(r.warnings, [])
    }

    func test09bMillionNestedGroupsKeepText() {
        let input = "{\\rtf1 " + String(repeating: "{", count: 1_000_000) + "\\b deep" + String(repeating: "}", count: 1_000_000) + " after}"
        let r = readRTF(input)
        XCTAssertEqual(r.document.string, "deep after")
    }

    func test10UnterminatedGroup() {
        let r = readRTF(#"{\rtf1\ansi Hello {\b bold"#)
        XCTAssertEqual(r.document.string, "Hello bold")
        XCTAssertEqual(runs(r.document).map(\.attributes.bold), [false, true])
        XCTAssertEqual(runs(r.document).map(\.text), ["Hello ", "bold"])
        XCTAssertFalse(r.warnings.isEmpty)
    }

    func test11JunkAfterRoot() {
        let r = readRTF(#"{\rtf1 a}}} trailing"#)
        XCTAssertEqual(r.document.string, "a")
    }

    func test12UnknownDestinations() {
        XCTAssertEqual(readRTF(#"a{\*\unknown zz}{\foo b}c"#).document.string, "abc")
    }

    func test13UprUsesUnicodeBranch() {
        XCTAssertEqual(readRTF(#"{\upr{\'3f}{\*\ud{\u12354?}}}"#).document.string, "あ")
    }

    func test14Hyperlink() throws {
        let r = readRTF(#"{\field{\*\fldinst{HYPERLINK "https://e.x/?a=1&b=2" \\o "tip"}}{\fldrslt \ul link}}"#)
        XCTAssertEqual(r.document.string, "link")
        let run = try XCTUnwrap(runs(r.document).first)
        XCTAssertEqual(run.attributes.link, Link(url: "https://e.x/?a=1&b=2", title: "tip"))
        XCTAssertEqual(run.attributes.underline, .single)
        let html = String(decoding: HTMLWriter.write(r.document).bytes, as: UTF8.self)
        XCTAssertTrue(html.contains(#"href="https://e.x/?a=1&amp;b=2""#), html)
        XCTAssertTrue(html.contains(#"title="tip""#), html)
    }

    func test15Cp1252UndefinedBytes() {
        let r = readRTF(#"\ansicpg1252 \'81\'8d\'80"#)
        XCTAssertEqual(r.document.string, "\u{0081}\u{008D}€")
    }

    func test16HiddenText() throws {
        let r = readRTF(#"a{\v hidden}b"#)
        XCTAssertEqual(String(decoding: PlainTextWriter.write(r.document), as: UTF8.self), "ab")
        let html = String(decoding: HTMLWriter.write(r.document).bytes, as: UTF8.self)
        XCTAssertFalse(html.contains("hidden"))
        XCTAssertTrue(html.contains("ab"), html)
        XCTAssertEqual(runs(r.document).map(\.attributes.hidden), [false, true, false])
    }

    func test17ShapePictureAndSkippedWMF() throws {
        let r = readRTF("x{\\*\\shppict{\\pict\\pngblip\\picw1\\pich1 8950 4e4\n7}}{\\nonshppict{\\pict\\wmetafile8 0100}}y")
        XCTAssertEqual(r.document.string, "x\u{FFFC}y")
        let attachment = try XCTUnwrap(r.document.attachments.first)
        XCTAssertEqual(r.document.attachments.count, 1)
        XCTAssertEqual(attachment.bytes, [0x89, 0x50, 0x4E, 0x47])
        XCTAssertEqual(attachment.mimeType, "image/png")
    }

    func test18NeXTGraphic() throws {
        let r = readRTF("{{\\NeXTGraphic Pasted Graphic.png \\width2000 \\height1000 \\appleattachmentpadding0 \\appleembedtype0 \\appleaqc\n}\\'ac}")
        XCTAssertEqual(r.document.string, "\u{FFFC}")
        let attachment = try XCTUnwrap(r.document.attachments.first)
        XCTAssertEqual(attachment.fileName, "Pasted Graphic.png")
        XCTAssertEqual(attachment.width, 100)
        XCTAssertEqual(attachment.height, 50)
        XCTAssertEqual(attachment.mimeType, "image/png")
    }

    func test19BackslashNewlineIsParagraph() {
        let r = readRTF("line1\\\nline2\\\r\n")
        XCTAssertEqual(r.document.paragraphs.map(\.text), ["line1", "line2"])
        XCTAssertEqual(r.document.string, "line1\nline2\n")
        XCTAssertEqual(readRTF("a\nb").document.string, "ab")
    }

    func testTable() {
        let r = readRTF(#"{\rtf1 \trowd\cellx1000\cellx2000 \intbl a\cell b\cell\row \trowd\cellx1000\cellx2000 \intbl c\cell d\cell\row \pard after\par}"#)
        let cells = r.document.paragraphs.compactMap(\.attributes.tableCell)
        XCTAssertEqual(cells.map(\.row), [0, 0, 1, 1])
        XCTAssertEqual(cells.map(\.column), [0, 1, 0, 1])
        XCTAssertEqual(String(decoding: PlainTextWriter.write(r.document), as: UTF8.self), "a\tb\nc\td\nafter\n")
        let html = String(decoding: HTMLWriter.write(r.document).bytes, as: UTF8.self)
        XCTAssertTrue(html.contains("<table"), html)
        XCTAssertTrue(html.contains("<td>a</td>"), html)
    }

    func testLeadByteCutByFontChange() {
        let r = readRTF(#"{\rtf1{\fonttbl\f0\fswiss\fcharset0 Helvetica;\f1\fnil\fcharset128 HiraginoSans-W3;}\f1\'82\f0 a}"#)
        XCTAssertEqual(r.document.string, "\u{FFFD}a")
    }

    func testHugeFontSizeClamped() throws {
        let r = readRTF(#"\fs99999999999 x"#)
        XCTAssertEqual(r.document.string, "x")
        let size = try XCTUnwrap(runs(r.document).first?.attributes.fontSize)
        XCTAssertLessThanOrEqual(size, 16384)
    }

    func testDoubleByteFontName() {
        let r = readRTF(#"{\rtf1{\fonttbl{\f0\fnil\fcharset128 \'82\'6c\'82\'72 \'96\'be\'92\'a9;}}\f0 x}"#)
        XCTAssertEqual(r.declaredFonts, ["ＭＳ 明朝"])
        XCTAssertEqual(runs(r.document).first?.attributes.fontFamily, "ＭＳ 明朝")
    }
}
