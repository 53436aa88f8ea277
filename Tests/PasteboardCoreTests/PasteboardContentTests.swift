// SPDX-License-Identifier: Apache-2.0
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

    /// A peer's representations: each that breaks a rule is left out with its reason, the rest kept in order.
    func testKeepingLeavesOutOnlyWhatBreaksARule() throws {
        // LibreOffice's object descriptor for a document saved a few directories deep: over 255 bytes, kept.
        let descriptor = #"application/x-openoffice-objectdescriptor-xml;windows_formatname="Star Object Descriptor (XML)";"#
            + #"classname="8BC6B165-B1B2-4EDD-aa47-dae2ee689dd6";typename="LibreOffice 7.4 Text Document";"#
            + #"displayname="file:///home/someone/Documents/projects/2026/quarterly-reports/draft-with-a-long-name.fodt";"#
            + #"viewaspect="1";width="16999";height="2995";posx="0";posy="0""#
        XCTAssertGreaterThan(descriptor.utf8.count, 255)
        let huge = String(repeating: "x", count: PasteboardLimits.maximumTypeNameLength + 1)
        let representations = [
            Representation(type: .utf8String, data: Array("text".utf8)),
            Representation(type: PasteboardType(descriptor), data: Array("<xml/>".utf8)),
            Representation(type: PasteboardType(huge), data: [1]),
            Representation(type: PasteboardType(""), data: [2]),
            Representation(type: PasteboardType("a\0b"), data: [3]),
            Representation(type: .utf8String, data: Array("again".utf8)),
            Representation(type: .html, data: Array("<b>text</b>".utf8)),
        ]
        let (item, skipped) = PasteboardItem.keeping(representations)
        XCTAssertEqual(item?.types, [.utf8String, PasteboardType(descriptor), .html])
        XCTAssertEqual(item?.data(for: .utf8String), Array("text".utf8), "the first of a type given twice")
        XCTAssertEqual(skipped.map(\.type.rawValue), [huge, "", "a\0b", "UTF8_STRING"])
        XCTAssertEqual(skipped.map(\.reason), ["its name is 65536 bytes, more than 65535", "its name is empty",
                                               "its name contains a NUL byte", "given twice; the first is kept"])
        XCTAssertLessThan(skipped[0].description.utf8.count, 140, "a log line names a huge type shortly: \(skipped[0])")
        XCTAssertTrue(skipped[0].description.hasPrefix("xxxx") && skipped[0].description.contains("(65536 bytes)"))

        let many = (0..<(PasteboardLimits.maximumRepresentationsPerItem + 3)).map { Representation(type: PasteboardType("t/\($0)"), data: []) }
        let (first, rest) = PasteboardItem.keeping(many)
        XCTAssertEqual(first?.types.count, PasteboardLimits.maximumRepresentationsPerItem)
        XCTAssertEqual(rest.map(\.type.rawValue), ["t/64", "t/65", "t/66"])
        XCTAssertEqual(rest.summary(limit: 2), "t/64: an item holds at most 64 representations; t/65: an item holds at most 64 representations; and 1 more")

        let (none, all) = PasteboardItem.keeping([Representation(type: PasteboardType(""), data: [])])
        XCTAssertNil(none)
        XCTAssertEqual(all.count, 1)
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
