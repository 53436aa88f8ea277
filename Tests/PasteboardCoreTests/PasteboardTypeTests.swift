// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import XCTest

final class PasteboardTypeTests: XCTestCase {
    func testAliases() {
        XCTAssertEqual(PasteboardType.named("text"), .utf8PlainText)
        XCTAssertEqual(PasteboardType.named("txt"), .utf8PlainText)
        XCTAssertEqual(PasteboardType.named("html"), PasteboardType("text/html"))
        XCTAssertEqual(PasteboardType.named("rtf"), PasteboardType("text/rtf"))
        XCTAssertEqual(PasteboardType.named("rtfd"), PasteboardType("com.apple.flat-rtfd"))
        XCTAssertEqual(PasteboardType.named("png"), PasteboardType("image/png"))
        XCTAssertEqual(PasteboardType.named("HTML"), .html, "aliases ignore case")
        XCTAssertEqual(PasteboardType.utf8PlainText.rawValue, "text/plain;charset=utf-8")
    }

    func testUniformTypeIdentifiers() {
        XCTAssertEqual(PasteboardType.named("public.utf8-plain-text")?.rawValue, "text/plain;charset=utf-8")
        XCTAssertEqual(PasteboardType.named("public.rtf"), .rtf)
        XCTAssertEqual(PasteboardType.named("public.html"), .html)
        XCTAssertEqual(PasteboardType.named("public.png"), .png)
        XCTAssertEqual(PasteboardType.named("com.apple.flat-rtfd"), .flatRTFD)
        XCTAssertEqual(PasteboardType.named("public.file-url"), .uriList)
        XCTAssertEqual(PasteboardType.named("NSStringPboardType"), .utf8PlainText)
    }

    func testOtherNamesAreKeptAsTheyAre() {
        for name in ["text/plain;charset=utf-8", "UTF8_STRING", "application/x-foo", "image/svg+xml",
                     "Text/HTML", "x-special/gnome-copied-files", String(repeating: "a", count: 255),
                     String(repeating: "a", count: 1000), String(repeating: "a", count: PasteboardLimits.maximumTypeNameLength)] {
            XCTAssertEqual(PasteboardType.named(name)?.rawValue, name)
        }
    }

    func testInvalidNamesAreRejected() {
        for name in ["", "text/\0plain", "a\nb", "tab\there", "del\u{7F}", String(repeating: "a", count: PasteboardLimits.maximumTypeNameLength + 1),
                     String(repeating: "é", count: PasteboardLimits.maximumTypeNameLength / 2 + 1)] {
            XCTAssertNil(PasteboardType.named(name), name.debugDescription)
        }
    }
}

final class PasteboardNameTests: XCTestCase {
    func testStandardSpellings() {
        XCTAssertEqual(PasteboardName.named("general"), .general)
        XCTAssertEqual(PasteboardName.named("clipboard"), .general)
        XCTAssertEqual(PasteboardName.named("CLIPBOARD"), .general)
        XCTAssertEqual(PasteboardName.named("General"), .general)
        XCTAssertEqual(PasteboardName.named("primary"), .primary)
        XCTAssertEqual(PasteboardName.named("PRIMARY"), .primary)
        XCTAssertEqual(PasteboardName.general.rawValue, "CLIPBOARD")
        XCTAssertEqual(PasteboardName.primary.rawValue, "PRIMARY")
        XCTAssertTrue(PasteboardName.general.isStandard)
    }

    func testOtherNamesAreNamedSelections() {
        XCTAssertEqual(PasteboardName.named("find")?.rawValue, "find")
        XCTAssertEqual(PasteboardName.named("my board")?.rawValue, "my board")
        XCTAssertEqual(PasteboardName.named("é")?.rawValue, "é")
        XCTAssertEqual(PasteboardName.named("find")?.isStandard, false)
    }

    func testLengthCapInBytes() {
        XCTAssertNotNil(PasteboardName.named(String(repeating: "x", count: 255)))
        XCTAssertNil(PasteboardName.named(String(repeating: "x", count: 256)))
        XCTAssertNil(PasteboardName.named(String(repeating: "é", count: 128)), "256 UTF-8 bytes")
    }

    func testEmptyAndControlCharactersRejected() {
        for name in ["", "a\0b", "line\n", "\u{1B}[0m", "x\u{7F}"] {
            XCTAssertNil(PasteboardName.named(name), name.debugDescription)
        }
    }
}
