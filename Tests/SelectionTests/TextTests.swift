// SPDX-License-Identifier: Apache-2.0
import Selection
import XTypes
import XCTest

final class Latin1Tests: XCTestCase {
    func testEncodeCafe() {
        XCTAssertEqual(Latin1.encode(utf8: Array("café".utf8)), [0x63, 0x61, 0x66, 0xE9])
    }

    func testDecodeCafe() {
        XCTAssertEqual(Latin1.decode([0x63, 0x61, 0x66, 0xE9]), Array("café".utf8))
    }

    func testCharactersOutsideLatin1BecomeQuestionMarks() {
        XCTAssertEqual(Latin1.encode(utf8: Array("5€".utf8)), Array("5?".utf8))
        XCTAssertEqual(Latin1.encode(utf8: Array("a😀b".utf8)), Array("a?b".utf8), "one ? per character")
        XCTAssertEqual(Latin1.encode(utf8: Array("ÿĀ".utf8)), [0xFF, 0x3F], "U+00FF is the last Latin-1 character")
    }

    func testInvalidUTF8BecomesQuestionMark() {
        XCTAssertEqual(Latin1.encode(utf8: [0x61, 0xFF, 0x62]), [0x61, 0x3F, 0x62])
        XCTAssertEqual(Latin1.encode(utf8: [0x61, 0xC3]), [0x61, 0x3F], "a truncated sequence")
    }

    func testASCIIIsUnchangedBothWays() {
        let ascii = (0..<0x80).map { UInt8($0) }
        XCTAssertEqual(Latin1.encode(utf8: ascii), ascii)
        XCTAssertEqual(Latin1.decode(ascii), ascii)
        XCTAssertTrue(Latin1.canEncode(utf8: ascii))
        XCTAssertEqual(Latin1.encode(utf8: []), [])
        XCTAssertEqual(Latin1.decode([]), [])
    }

    func testCanEncode() {
        XCTAssertTrue(Latin1.canEncode(utf8: Array("café ÿ".utf8)))
        XCTAssertFalse(Latin1.canEncode(utf8: Array("5€".utf8)))
        XCTAssertFalse(Latin1.canEncode(utf8: [0x61, 0xFF]), "invalid UTF-8 cannot be encoded faithfully")
    }

    func testEveryByteRoundTripsThroughUTF8() {
        let all = (0...255).map { UInt8($0) }
        let utf8 = Latin1.decode(all)
        XCTAssertEqual(String(decoding: utf8, as: UTF8.self).unicodeScalars.map(\.value), (0...255).map { UInt32($0) })
        XCTAssertTrue(Latin1.canEncode(utf8: utf8))
        XCTAssertEqual(Latin1.encode(utf8: utf8), all)
    }
}
