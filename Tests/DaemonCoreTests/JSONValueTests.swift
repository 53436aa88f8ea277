// SPDX-License-Identifier: Apache-2.0
@testable import DaemonCore
import XCTest

final class JSONValueTests: XCTestCase {
    func parse(_ text: String) throws -> JSONValue { try JSONValue.parse(Array(text.utf8)) }

    func error(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> JSONValue.ParseError? {
        do {
            let value = try JSONValue.parse(Array(text.utf8))
            XCTFail("\(text) parsed as \(value)", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    func testValues() throws {
        XCTAssertEqual(
            try parse(#" {"a": [1, -2.5, 3e2, 0, -0.0, 1E-2], "b": true, "c": false, "d": null, "e": "x", "f": {}, "g": []} "#),
            .object([
                "a": .array([.number(1), .number(-2.5), .number(300), .number(0), .number(0), .number(0.01)]),
                "b": .bool(true), "c": .bool(false), "d": .null, "e": .string("x"), "f": .object([:]), "g": .array([]),
            ]))
        XCTAssertEqual(try parse("42"), .number(42))
        XCTAssertEqual(try parse("\u{FEFF}[\"bom\"]"), .array([.string("bom")]))
        XCTAssertEqual(try parse(#"{"k": 1, "k": 2}"#), .object(["k": .number(2)]), "the last of a repeated key wins")
        XCTAssertEqual(try parse("68719476736"), .number(68_719_476_736))
    }

    func testStringEscapesAndUnicode() throws {
        XCTAssertEqual(try parse(#""\" \\ \/ \b \f \n \r \t""#), .string("\" \\ / \u{08} \u{0C} \n \r \t"))
        XCTAssertEqual(try parse(#""\u00e9\u65E5\ud83d\ude00""#), .string("é日😀"))
        XCTAssertEqual(try parse("\"café 日本 😀\""), .string("café 日本 😀"))
    }

    func testErrorsSayWhereAndWhy() {
        XCTAssertEqual(error("{\"ramOnly\": tru")?.description, "line 1, column 16: unexpected end of input, expected true")
        XCTAssertEqual(error("{\n  \"a\": 1,\n}")?.description, "line 3, column 1: unexpected '}', expected a key in quotes")
        XCTAssertEqual(error("[1 2]")?.description, "line 1, column 4: unexpected '2', expected ',' or ']'")
        XCTAssertEqual(error("")?.description, "line 1, column 1: unexpected end of input, expected a value")
        XCTAssertEqual(error("{} x")?.description, "line 1, column 4: unexpected text after the value")
        XCTAssertEqual(error("{\"a\" 1}")?.description, "line 1, column 6: unexpected '1', expected ':'")
    }

    func testStrictness() {
        for bad in ["01", "1.", ".5", "+1", "1e", "-", "0x10", "NaN", "Infinity", "1e999", "[1,]", "{\"a\":1,}", "// c\n{}",
                    "'a'", "\"a", "\"\t\"", #""\x""#, #""\u12""#, #""\ud800""#, #""\udc00""#, #""\ud800\u0041""#,
                    "True", "nul", "[", "{\"a\"}", "{1: 2}"] {
            XCTAssertNotNil(error(bad), bad)
        }
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC0, 0x80, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xE6, 0x97, 0x22]] {
            XCTAssertThrowsError(try JSONValue.parse(bytes), "invalid UTF-8 \(bytes)")
        }
    }

    func testLimits() throws {
        let deep = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        XCTAssertNoThrow(try parse(deep))
        let deeper = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        XCTAssertEqual(error(deeper)?.reason, "nested deeper than 64 levels")
        XCTAssertEqual(error(String(repeating: "[", count: 100_000))?.reason, "nested deeper than 64 levels")
        let big = Array("\"".utf8) + [UInt8](repeating: 0x61, count: 100) + Array("\"".utf8)
        XCTAssertThrowsError(try JSONValue.parse(big, maximumSize: 50)) { error in
            XCTAssertEqual((error as? JSONValue.ParseError)?.reason, "the input is larger than 50 bytes")
        }
        XCTAssertEqual(try JSONValue.parse(big, maximumSize: 102), .string(String(repeating: "a", count: 100)))
    }
}
