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
    }

    func testItemRulesAreTheWireRules() {
        XCTAssertThrowsError(try PasteboardItem([Representation]())) { XCTAssertEqual($0 as? PasteboardItemError, .empty) }
        let tooMany = (0...PasteboardLimits.maximumRepresentationsPerItem).map { Representation(type: PasteboardType("t/\($0)"), data: []) }
        XCTAssertThrowsError(try PasteboardItem(tooMany)) {
            XCTAssertEqual($0 as? PasteboardItemError, .tooManyRepresentations(PasteboardLimits.maximumRepresentationsPerItem + 1))
        }
        XCTAssertNoThrow(try PasteboardItem(Array(tooMany.dropLast())))
        for bad in ["", "a\0b", String(repeating: "x", count: PasteboardLimits.maximumTypeNameLength + 1)] {
            XCTAssertThrowsError(try PasteboardItem([(PasteboardType(bad), [1])]), bad.debugDescription) {
                guard case .invalidTypeName(index: 0, _) = $0 as? PasteboardItemError else { return XCTFail("\($0)") }
            }
        }
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

    func testPlainTextIsTheBestTextRepresentation() throws {
        let content = PasteboardContent(items: [
            try item([("image/png", "p")]),
            try item([("text/html", "<i>é</i>"), ("COMPOUND_TEXT", "ct"), ("STRING", "e"), ("UTF8_STRING", "é")]),
            try item([("text/plain;charset=utf-8", "later")]),
        ])
        XCTAssertEqual(content.plainText(), Array("é".utf8), "UTF8_STRING before STRING; COMPOUND_TEXT needs Xlib")
        XCTAssertNil(PasteboardContent(items: [try item([("text/html", "x"), ("COMPOUND_TEXT", "y")])]).plainText(),
                     "rich text is not rendered for a preview, COMPOUND_TEXT needs an X connection")
    }

    func testByteCountAndSensitivity() throws {
        let content = PasteboardContent(items: [try item([("a/b", "123")]), try item([("c/d", "45")])], isSensitive: true)
        XCTAssertEqual(content.byteCount, 5)
        XCTAssertTrue(content.isSensitive)
        XCTAssertFalse(PasteboardContent(items: []).isSensitive)
    }

    func testPlainTextDecodesLatin1String() throws {
        let content = PasteboardContent(items: [try PasteboardItem([(.string, [0x63, 0x61, 0x66, 0xE9])])])
        XCTAssertEqual(content.plainText(), Array("café".utf8))
    }
}
