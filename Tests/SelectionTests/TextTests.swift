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

final class TextTargetsTests: XCTestCase {
    let atoms = standardAtoms
    var targets: TextTargets { TextTargets(atoms: atoms) }
    let cafe = Array("café".utf8)
    let euro = Array("5€".utf8)

    func value(_ target: Atom, _ text: [UInt8]) -> PropertyValue? {
        targets.value(for: target, utf8: text) { _ in
            XCTFail("COMPOUND_TEXT encoder called for \(target)")
            return nil
        }
    }

    func testUTF8TargetsCarryTheBytesUnchanged() {
        XCTAssertEqual(value(atoms.utf8String, euro), PropertyValue(type: atoms.utf8String, bytes: euro))
        XCTAssertEqual(value(atoms.textPlainUTF8, euro), PropertyValue(type: atoms.textPlainUTF8, bytes: euro))
        XCTAssertEqual(value(atoms.textPlain, euro), PropertyValue(type: atoms.textPlain, bytes: euro))
    }

    func testStringIsLatin1() {
        XCTAssertEqual(value(atoms.string, cafe), PropertyValue(type: atoms.string, bytes: [0x63, 0x61, 0x66, 0xE9]))
        XCTAssertEqual(value(atoms.string, euro), PropertyValue(type: atoms.string, bytes: Array("5?".utf8)))
    }

    func testTextIsStringWhenLatin1FitsElseUTF8String() {
        XCTAssertEqual(value(atoms.text, cafe), PropertyValue(type: atoms.string, bytes: [0x63, 0x61, 0x66, 0xE9]))
        XCTAssertEqual(value(atoms.text, euro), PropertyValue(type: atoms.utf8String, bytes: euro))
        for text in [cafe, euro, Array("plain".utf8), []] {
            XCTAssertNotEqual(value(atoms.text, text)?.type, atoms.text, "a reply is never typed TEXT")
        }
    }

    func testCompoundTextUsesTheEncoder() {
        var received: [[UInt8]] = []
        let encoded = PropertyValue(type: atoms.compoundText, bytes: [0x1B, 0x25, 0x47])
        let result = targets.value(for: atoms.compoundText, utf8: euro) { text in
            received.append(text)
            return encoded
        }
        XCTAssertEqual(result, encoded)
        XCTAssertEqual(received, [euro])
        XCTAssertNil(targets.value(for: atoms.compoundText, utf8: euro) { _ in nil }, "encoder failure refuses")
    }

    func testNonTextTargetHasNoValue() {
        XCTAssertNil(value(htmlAtom, cafe))
        XCTAssertNil(value(atoms.targets, cafe))
        XCTAssertFalse(targets.isTextTarget(htmlAtom))
        for atom in [atoms.utf8String, atoms.textPlainUTF8, atoms.textPlain, atoms.string, atoms.text, atoms.compoundText] {
            XCTAssertTrue(targets.isTextTarget(atom))
        }
    }

    func testUTF8FromReceivedValues() {
        let noCompound: ([UInt8]) -> [UInt8]? = { _ in XCTFail("decoder called"); return nil }
        XCTAssertEqual(targets.utf8(from: PropertyValue(type: atoms.string, bytes: [0x63, 0x61, 0x66, 0xE9]),
                                    decodeCompoundText: noCompound), cafe)
        XCTAssertEqual(targets.utf8(from: PropertyValue(type: atoms.utf8String, bytes: euro),
                                    decodeCompoundText: noCompound), euro)
        XCTAssertEqual(targets.utf8(from: PropertyValue(type: atoms.textPlainUTF8, bytes: euro),
                                    decodeCompoundText: noCompound), euro)
        XCTAssertEqual(targets.utf8(from: PropertyValue(type: atoms.compoundText, bytes: [1, 2]),
                                    decodeCompoundText: { $0 == [1, 2] ? euro : nil }), euro)
        XCTAssertNil(targets.utf8(from: PropertyValue(type: atoms.atom, longs: [1]), decodeCompoundText: noCompound),
                     "format-32 data is not text")
    }
}
