// SPDX-License-Identifier: Apache-2.0
import XCTest

@testable import RichText
import SystemSupport

/// The single-byte tables built into RichText and the iconv decoder pb and the daemon inject for the rest.
final class CodePageTests: XCTestCase {
    func testBuiltInTablesDecodeTheirPages() {
        let builtIn = BuiltInCodePages()
        XCTAssertEqual(builtIn.decode([0x41, 0x80, 0x81, 0x8D, 0x9F, 0xE9], codePage: 1252), "A€\u{81}\u{8D}Ÿé")
        XCTAssertEqual(builtIn.decode([0xC0, 0xFF], codePage: 1251), "Ая")
        XCTAssertEqual(builtIn.decode([0xA9, 0xB9], codePage: 1250), "©ą")
        XCTAssertEqual(builtIn.decode([0xC1, 0xF9], codePage: 1253), "Αω")
        XCTAssertEqual(builtIn.decode([0xD0, 0xFD], codePage: 1254), "Ğı")
        XCTAssertEqual(builtIn.decode([0xE0], codePage: 1255), "א")
        XCTAssertEqual(builtIn.decode([0xC7], codePage: 1256), "ا")
        XCTAssertEqual(builtIn.decode([0xC0], codePage: 1257), "Ą")
        XCTAssertEqual(builtIn.decode([0xD0], codePage: 1258), "Đ")
        XCTAssertEqual(builtIn.decode([0xA1, 0xDB], codePage: 874), "ก\u{DB}", "0xDB is undefined in cp874: its own value")
        XCTAssertEqual(builtIn.decode([0x82, 0xB0], codePage: 437), "é░")
        XCTAssertEqual(builtIn.decode([0x9B, 0xD5], codePage: 850), "øı")
        XCTAssertEqual(builtIn.decode([0x8E, 0xDB, 0xF0], codePage: 10000), "é€\u{F8FF}")
        XCTAssertNil(builtIn.decode([0x82, 0xA0], codePage: 932), "double-byte pages need a system decoder")
    }

    func testUndefinedBytesKeepTheirValue() {
        // Tricky input 15 relies on this for cp1252; every table page does the same.
        for number in CodePageTables.pages where number != 10000 {
            let page = CodePage(number)
            for byte in UInt8(0x80)...0xFF where CodePageTables.high(number)![Int(byte - 0x80)] == UInt16(byte) {
                XCTAssertEqual(page.decode(byte), Unicode.Scalar(byte), "cp\(number) 0x\(String(byte, radix: 16))")
            }
        }
        XCTAssertEqual(CodePage(1252).decode([0x81, 0x8D, 0x80]), "\u{81}\u{8D}€")
        XCTAssertEqual(CodePage(1253).decode([0xAA]), "\u{AA}")
    }

    func testIconvDecodesTheDoubleByteWindowsPages() {
        let iconv = IconvCodePages()
        XCTAssertEqual(iconv.decode([0x82, 0xA0], codePage: 932), "あ")
        XCTAssertEqual(iconv.decode([0x95, 0x5C], codePage: 932), "表")
        XCTAssertEqual(iconv.decode([0x81, 0x60], codePage: 932), "\u{FF5E}", "cp932's wave dash is the fullwidth tilde")
        XCTAssertEqual(iconv.decode([0xB1], codePage: 932), "ｱ", "half-width katakana are single bytes")
        XCTAssertEqual(iconv.decode([0xD6, 0xD0, 0xCE, 0xC4], codePage: 936), "中文")
        XCTAssertEqual(iconv.decode([0x81, 0x40], codePage: 936), "丂", "GBK beyond GB2312")
        XCTAssertEqual(iconv.decode([0xC7, 0xD1, 0xB1, 0xDB], codePage: 949), "한글")
        XCTAssertEqual(iconv.decode([0x81, 0x41], codePage: 949), "갂", "UHC beyond EUC-KR")
        XCTAssertEqual(iconv.decode([0xA4, 0xA4, 0xA4, 0xE5], codePage: 950), "中文")
        XCTAssertEqual(iconv.decode([0x88, 0x61], codePage: 1361), "가")
        XCTAssertEqual(iconv.decode([0xC1], codePage: 20866), "а", "KOI8-R")
    }

    func testIconvRefusesInvalidAndUnknown() {
        let iconv = IconvCodePages()
        XCTAssertNil(iconv.decode([0x82], codePage: 932), "a lead byte alone")
        XCTAssertNil(iconv.decode([0x82, 0x20], codePage: 932), "an invalid trail byte")
        XCTAssertNil(iconv.decode([0x41], codePage: 0))
        XCTAssertNil(iconv.decode([0x41], codePage: 99_999))
        XCTAssertEqual(iconv.decode([], codePage: 932), "")
    }

    func testDoubleByteCodePageWithInjectedDecoder() {
        let page = CodePage(932, decoder: systemCodePages)
        XCTAssertEqual(page.decode([0x82, 0xA0, 0x41, 0xB1, 0x95, 0x5C, 0x82]), "あAｱ表\u{FFFD}")
        XCTAssertEqual(CodePage(932).decode([0x82, 0xA0, 0x41]), "\u{FFFD}A", "without one: U+FFFD, never a guess")
    }
}
