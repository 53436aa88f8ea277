import PasteboardCore
import XCTest

final class PasteboardContentTests: XCTestCase {
    func item(_ reps: [(String, String)]) throws -> PasteboardItem {
        try PasteboardItem(reps.map { (PasteboardType($0.0), Array($0.1.utf8)) })
    }

    func testDuplicateTypeInOneItemThrows() {
        XCTAssertThrowsError(try item([("text/html", "a"), ("image/png", "b"), ("text/html", "c")])) { error in
            XCTAssertEqual(error as? PasteboardItemError, .duplicateType(.html))
        }
        var built = PasteboardItem()
        XCTAssertNoThrow(try built.add(.png, [1]))
        XCTAssertThrowsError(try built.add(.png, [2]))
        XCTAssertEqual(built.data(for: .png), [1], "the first representation is kept")
    }

    func testItemKeepsOrderAndBytes() throws {
        let one = try item([("text/html", "<b>x</b>"), ("UTF8_STRING", "x")])
        XCTAssertEqual(one.types, [.html, .utf8String])
        XCTAssertEqual(one.data(for: .utf8String), Array("x".utf8))
        XCTAssertNil(one.data(for: .png))
        XCTAssertEqual(one.byteCount, 9)
    }

    func testTypesAreTheUnionInOrderOfFirstAppearance() throws {
        let content = PasteboardContent(items: [
            try item([("text/html", "1"), ("UTF8_STRING", "1")]),
            try item([("image/png", "2"), ("text/html", "2"), ("text/uri-list", "2")]),
            try item([("UTF8_STRING", "3"), ("text/rtf", "3")]),
        ])
        XCTAssertEqual(content.types, [.html, .utf8String, .png, .uriList, .rtf])
    }

    func testFirstItemWithATypeProvidesIt() throws {
        let content = PasteboardContent(items: [
            try item([("text/html", "first")]),
            try item([("text/html", "second"), ("image/png", "png")]),
        ])
        XCTAssertEqual(content.data(for: .html), Array("first".utf8))
        XCTAssertEqual(content.data(for: .png), Array("png".utf8))
        XCTAssertNil(content.data(for: .rtf))
    }

    func testURIListsOfAllItemsAreJoined() throws {
        let content = PasteboardContent(items: [
            try item([("text/uri-list", "file:///a")]),
            try item([("text/html", "no uris here")]),
            try item([("text/uri-list", "file:///b\r\n")]),
            try item([("text/uri-list", "file:///c\n")]),
            try item([("text/uri-list", "file:///d")]),
        ])
        XCTAssertEqual(String(decoding: content.data(for: .uriList)!, as: UTF8.self),
                       "file:///a\r\nfile:///b\r\nfile:///c\nfile:///d\r\n")
    }

    func testSingleURIListIsServedAsItIs() throws {
        let content = PasteboardContent(items: [try item([("text/uri-list", "file:///a")]), try item([("image/png", "x")])])
        XCTAssertEqual(content.data(for: .uriList), Array("file:///a".utf8))
        XCTAssertNil(PasteboardContent(items: []).data(for: .uriList))
    }

    func testUTF8TextIsTheFirstTextRepresentation() throws {
        let content = PasteboardContent(items: [
            try item([("image/png", "p")]),
            try item([("text/html", "<i>é</i>"), ("COMPOUND_TEXT", "ct"), ("UTF8_STRING", "é"), ("text/plain", "e")]),
            try item([("text/plain;charset=utf-8", "later")]),
        ])
        let text = content.utf8Text
        XCTAssertEqual(text?.type, .utf8String, "COMPOUND_TEXT is skipped")
        XCTAssertEqual(text?.bytes, Array("é".utf8))
        XCTAssertNil(PasteboardContent(items: [try item([("text/html", "x"), ("COMPOUND_TEXT", "y")])]).utf8Text)
    }

    func testByteCountAndSensitivity() throws {
        let content = PasteboardContent(items: [try item([("a/b", "123")]), try item([("c/d", "45")])], isSensitive: true)
        XCTAssertEqual(content.byteCount, 5)
        XCTAssertTrue(content.isSensitive)
        XCTAssertFalse(PasteboardContent(items: []).isSensitive)
    }

    func testUTF8TextDecodesLatin1String() throws {
        let content = PasteboardContent(items: [try PasteboardItem([(.string, [0x63, 0x61, 0x66, 0xE9])])])
        XCTAssertEqual(content.utf8Text?.type, .string)
        XCTAssertEqual(content.utf8Text?.bytes, Array("café".utf8))
    }
}
