// SPDX-License-Identifier: Apache-2.0
import TestSupport
import XCTest

@testable import RichText

/// Word, WordPad, LibreOffice and Cocoa constructs beyond the twenty tricky inputs.
final class RTFReaderDialectTests: XCTestCase {
    func testWordFontTableWithPanoseAndAltNamesAndDefaultFont() {
        let r = readRTF(#"{\rtf1\ansi\deff1{\fonttbl{\f0\froman\fcharset0{\*\panose 02020603050405020304}Times New Roman{\*\falt Times};}{\f1\fswiss Arial;}}\f0 a\f7 b}"#)
        XCTAssertEqual(r.declaredFonts, ["Times New Roman", "Arial"])
        XCTAssertEqual(runs(r.document).map(\.attributes.fontFamily), ["Times New Roman", "Arial"])
    }

    func testSymbolFontAndCyrillicCodePage() {
        XCTAssertEqual(readRTF(#"{\rtf1{\fonttbl{\f0\ftech\fcharset2 Symbol;}{\f1\fcharset204 Arial Cyr;}}\f0 a\'b7\f1 \'cf\'f0\'e8}"#).document.string, "α•При")
    }

    func testHyperlinkAnchorsAndBackslashesAndSplitInstruction() throws {
        let anchor = readRTF(#"{\field{\*\fldinst HYPERLINK \\l "sec1"}{\fldrslt go}}"#)
        XCTAssertEqual(runs(anchor.document).first?.attributes.link?.url, "#sec1")
        let path = readRTF(#"{\field{\*\fldinst {HYPERLINK "file:///C:\\\\dir\\\\f.doc"}}{\fldrslt f}}"#)
        XCTAssertEqual(runs(path.document).first?.attributes.link?.url, #"file:///C:\dir\f.doc"#)
        let split = readRTF(#"{\field{\*\fldinst {HYPER}{LINK "https://e.x/caf\'e9\u8364?"}}{\fldrslt x}}"#)
        XCTAssertEqual(runs(split.document).first?.attributes.link?.url, "https://e.x/café€")
        let page = readRTF(#"{\field{\*\fldinst PAGE}{\fldrslt 3}} of"#)
        XCTAssertEqual(page.document.string, "3 of")
        XCTAssertNil(runs(page.document).first?.attributes.link)
    }

    func testOldWordListsWithPntext() {
        let r = readRTF(#"{\rtf1{\pntext\f0 1.\tab}{\*\pn\pnlvlbody\pndec}one\par{\pntext 2.\tab}two\par\pard plain\par}"#)
        XCTAssertEqual(r.document.paragraphs.map(\.text), ["one", "two", "plain"])
        XCTAssertEqual(r.document.paragraphs.map { $0.attributes.list?.marker }, ["1.", "2.", nil])
        XCTAssertEqual(r.document.paragraphs.first?.attributes.list?.kind, .decimal)
    }

    func testParagraphFormatting() throws {
        let r = readRTF(#"{\rtf1\pard\qc\li720\ri360\fi-360\sb120\sa240 centred\par\pard\qr right\par\pard\qj\outlinelevel1 heading\par}"#)
        let p = r.document.paragraphs
        XCTAssertEqual(p.map(\.attributes.alignment), [.center, .right, .justified])
        XCTAssertEqual(p[0].attributes.leftIndent, 36)
        XCTAssertEqual(p[0].attributes.rightIndent, 18)
        XCTAssertEqual(p[0].attributes.firstLineIndent, -18)
        XCTAssertEqual(p[0].attributes.spaceBefore, 6)
        XCTAssertEqual(p[0].attributes.spaceAfter, 12)
        XCTAssertEqual(p[2].attributes.headingLevel, 2)
    }

    func testCharacterFormattingAndPlain() throws {
        let r = readRTF(#"{\rtf1{\colortbl;\red1\green2\blue3;\red4\green5\blue6;}\b\i\ul\strike\fs30\cf1\highlight2\super x\plain y\b0\uldb z\ulnone\sub w\nosupersub\striked1 v}"#)
        let x = runs(r.document)
        XCTAssertEqual(x.map(\.text), ["x", "y", "z", "w", "v"])
        XCTAssertEqual(x[0].attributes, CharacterAttributes(fontSize: 15, bold: true, italic: true, underline: .single, strikethrough: .single, foregroundColor: RGBColor(red: 1, green: 2, blue: 3), backgroundColor: RGBColor(red: 4, green: 5, blue: 6), baseline: .superscript))
        XCTAssertEqual(x[1].attributes, CharacterAttributes())
        XCTAssertEqual(x[2].attributes.underline, .double)
        XCTAssertEqual(x[3].attributes.baseline, .subscript)
        XCTAssertEqual(x[4].attributes.strikethrough, .double)
    }

    func testSpecialCharactersAndControlSymbols() {
        XCTAssertEqual(readRTF(#"a\tab b\line c\~d\-e\_f\emdash\endash\bullet\lquote\rquote\ldblquote\rdblquote\page"#).document.string,
                       "a\tb\u{2028}c\u{00A0}d\u{00AD}e\u{2011}f—–•‘’“”\u{000C}")
    }

    func testObjectKeepsResultAndHeadersAreSkipped() {
        XCTAssertEqual(readRTF(#"{\rtf1{\header H}{\footer F}{\info{\title T}}{\object\objemb{\*\objdata 0102}{\result shown}} end}"#).document.string, "shown end")
    }

    func testBinaryPictureData() throws {
        let input: [UInt8] = Array(#"{\pict\pngblip\bin4 "#.utf8) + [0x89, 0x50, 0x4E, 0x47] + Array("}".utf8)
        let r = RTFReader.read(input)
        XCTAssertEqual(r.document.attachments.first?.bytes, [0x89, 0x50, 0x4E, 0x47])
    }

    func testMacAndPCCodePages() {
        XCTAssertEqual(CodePage.macRoman.count, 128)
        XCTAssertEqual(readRTF(#"{\rtf1\mac \'8e\'a5\'ff}"#).document.string, "é•ˇ")
        XCTAssertEqual(readRTF(#"{\rtf1\pc \'82}"#).document.string, "é")
    }

    func testNeverTrapsOnGarbage() {
        var generator = SeededGenerator.forTest(name)
        let alphabet = Array(#"{}\'*abuc0123456789-; binpictfieldfldinstHYPERLINK"#.utf8) + [0x0A, 0x80, 0xFF, 0x82]
        for _ in 0..<300 {
            let input = (0..<Int.random(in: 0..<400, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }
            let r = RTFReader.read(input)
            _ = RTFWriter.write(r.document)
            _ = HTMLWriter.write(r.document)
        }
    }

    /// The rule of formats.md's "Scripts and associated properties", word for word.
    func testAssociatedPropertiesApplyByScript() throws {
        let r = readRTF("{\\rtf1 {\\rtlch\\ab\\ltrch\\b0 \\u1513?\\u1500?\\u1493?\\u1501? abc \\u26085?}}")
        let hebrew = try XCTUnwrap(runs(r.document).first { $0.text.contains("שלום") })
        XCTAssertTrue(hebrew.attributes.bold)
        XCTAssertFalse(try XCTUnwrap(runs(r.document).first { $0.text.contains("abc") }).attributes.bold)
        XCTAssertFalse(try XCTUnwrap(runs(r.document).first { $0.text.contains("日") }).attributes.bold, "CJK takes \\b")
        // Without any associated word (Cocoa, pandoc), \b is bold for every script.
        XCTAssertTrue(runs(readRTF("{\\rtf1 {\\b \\u1513?\\u1500? abc}}").document).allSatisfy(\.attributes.bold))
        // \dbch\ab (LibreOffice's CJK bold) is the western/East Asian set; \hich\ab the complex one.
        XCTAssertTrue(runs(readRTF("{\\rtf1 {\\dbch\\ab \\u26085?}}").document).first?.attributes.bold ?? false)
        XCTAssertFalse(runs(readRTF("{\\rtf1 {\\hich\\ab \\u26085?}}").document).first?.attributes.bold ?? true)
    }

    func testListTemplatesWithSeveralLevelsAndOverrideRestart() {
        let table = #"{\*\listtable{\list{\listlevel\levelnfc0\levelstartat1{\leveltext\'02\'00.;}}"#
            + #"{\listlevel\levelnfc0\levelstartat1{\leveltext\'04\'00.\'01.;}}\listid7}}"#
            + #"{\*\listoverridetable{\listoverride\listid7\ls1}{\listoverride\listid7{\lfolevel\listoverridestartat\levelstartat5}\ls2}}"#
        let body = #"\pard\ls1 a\par\pard\ls1\ilvl1 b\par\pard\ls1\ilvl1 c\par\pard\ls1 d\par\pard\ls1\ilvl1 e\par\pard\ls2 f\par}"#
        let r = readRTF(#"{\rtf1"# + table + body)
        XCTAssertEqual(r.document.paragraphs.map { $0.attributes.list?.marker }, ["1.", "1.1.", "1.2.", "2.", "2.1.", "5."])
    }

    /// A group inside a style entry (Word's `{\*\…}` extras) does not end the entry.
    func testHeadingStyleWithNestedGroupsInItsEntry() {
        let r = readRTF(#"{\rtf1{\stylesheet{\ql Normal;}{\s2\ql{\*\unknownextra x}\b{\lang1033 }heading 2;}}\pard\s2 Title\par\pard body\par}"#)
        XCTAssertEqual(r.document.paragraphs.map(\.attributes.headingLevel), [2, nil])
    }

    /// `\shptxt` and Word 6/95's `\dptxbxtext` text is text-box text: its paragraphs are marked, shown by HTML where
    /// the box is anchored, and left out of plain text, which is the running text around them.
    func testTextBoxParagraphsAreNotRunningText() throws {
        let shape = readRTF(#"{\rtf1 before{\shp{\*\shpinst{\sp{\sn fFilled}{\sv 0}}{\shptxt box one\par box two}}} after\par}"#).document
        XCTAssertEqual(shape.paragraphs.map(\.text), ["box one", "box two", "before after"])
        XCTAssertEqual(shape.paragraphs.map(\.attributes.isInTextBox), [true, true, false])
        XCTAssertEqual(String(decoding: PlainTextWriter.write(shape), as: UTF8.self), "before after\n")
        let html = String(decoding: HTMLWriter.write(shape).bytes, as: UTF8.self)
        XCTAssertTrue(html.contains("box one") && html.contains("box two"), html)
        let word95 = readRTF(#"{\rtf1 {\*\do\dobxcolumn\dptxbx{\dptxbxtext inner\par}}outer\par}"#).document
        XCTAssertEqual(String(decoding: PlainTextWriter.write(word95), as: UTF8.self), "outer\n")
        // A box after the body's last paragraph break, or the body without one: the body's own ending.
        XCTAssertEqual(String(decoding: PlainTextWriter.write(readRTF(#"{\rtf1 body\par{\shp{\*\shpinst{\shptxt box}}}}"#).document), as: UTF8.self), "body\n")
        XCTAssertEqual(String(decoding: PlainTextWriter.write(readRTF(#"{\rtf1 body{\shp{\*\shpinst{\shptxt box}}}}"#).document), as: UTF8.self), "body")
    }

    /// A body with no text (white space, hidden text, a picture) and text boxes: plain text is every box's text,
    /// in document order, as when a text box alone was copied.
    func testTextBoxesOfABodyWithoutTextAreThePlainText() {
        let rtf = #"{\rtf1 {\v hidden}\tab {\shp{\*\shpinst{\shptxt one}}}{\*\shppict{\pict\pngblip 89504e47}}"#
            + #"{\*\do\dptxbx{\dptxbxtext two\par three}}\par}"#
        XCTAssertEqual(String(decoding: PlainTextWriter.write(readRTF(rtf).document), as: UTF8.self), "one\ntwo\nthree\n")
    }
}
