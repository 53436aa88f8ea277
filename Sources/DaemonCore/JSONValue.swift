// SPDX-License-Identifier: Apache-2.0
/// A JSON value (RFC 8259), parsed strictly from UTF-8 bytes without Foundation.
///
/// Numbers are kept as `Double` (exact for integers up to 2^53); an object keeps the last value of a
/// repeated key, as JSONSerialization did. The parser accepts exactly one value surrounded by optional
/// whitespace (a leading UTF-8 byte order mark is skipped); it rejects comments, trailing commas, lone
/// surrogates, control characters in strings, invalid UTF-8, and input deeper or larger than its limits.
enum JSONValue: Equatable, Sendable {
    case object([String: JSONValue])
    case array([JSONValue])
    case string(String)
    case number(Double)
    case bool(Bool)
    case null

    /// Nesting deeper than this many arrays and objects is an error.
    static let defaultMaximumDepth = 64
    /// Input longer than this many bytes is an error.
    static let defaultMaximumSize = 1 << 20

    /// Why the bytes are not JSON, and where (1-based line and column, counted in bytes).
    struct ParseError: Error, Equatable, Sendable, CustomStringConvertible {
        var reason: String
        var line: Int
        var column: Int
        var description: String { "line \(line), column \(column): \(reason)" }
    }

    /// Parses one JSON value from `bytes`.
    static func parse(
        _ bytes: [UInt8], maximumDepth: Int = defaultMaximumDepth, maximumSize: Int = defaultMaximumSize
    ) throws(ParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, maximumDepth: maximumDepth)
        guard bytes.count <= maximumSize else { throw parser.error("the input is larger than \(maximumSize) bytes") }
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.position = 3 }
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw parser.error("unexpected text after the value") }
        return value
    }
}

/// A recursive-descent parser over bytes; `depth` counts open arrays and objects.
private struct JSONParser {
    let bytes: [UInt8]
    let maximumDepth: Int
    var position = 0

    init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    /// An error at the current position.
    func error(_ reason: String) -> JSONValue.ParseError {
        var line = 1
        var lineStart = 0
        for index in 0..<min(position, bytes.count) where bytes[index] == 0x0A {
            line += 1
            lineStart = index + 1
        }
        return JSONValue.ParseError(reason: reason, line: line, column: position - lineStart + 1)
    }

    var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
    }

    mutating func expect(_ literal: String, _ value: JSONValue) throws(JSONValue.ParseError) -> JSONValue {
        for expected in literal.utf8 {
            guard current == expected else { throw error("unexpected \(describeCurrent()), expected \(literal)") }
            position += 1
        }
        return value
    }

    func describeCurrent() -> String {
        guard let byte = current else { return "end of input" }
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }

    mutating func value(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        guard let byte = current else { throw error("unexpected end of input, expected a value") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try expect("true", .bool(true))
        case UInt8(ascii: "f"): return try expect("false", .bool(false))
        case UInt8(ascii: "n"): return try expect("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected \(describeCurrent()), expected a value")
        }
    }

    mutating func object(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        guard depth <= maximumDepth else { throw error("nested deeper than \(maximumDepth) levels") }
        position += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("unexpected \(describeCurrent()), expected a key in quotes") }
            let key = try string()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("unexpected \(describeCurrent()), expected ':'") }
            position += 1
            skipWhitespace()
            members[key] = try value(depth: depth)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return .object(members)
            default: throw error("unexpected \(describeCurrent()), expected ',' or '}'")
            }
        }
    }

    mutating func array(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        guard depth <= maximumDepth else { throw error("nested deeper than \(maximumDepth) levels") }
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return .array(elements)
            default: throw error("unexpected \(describeCurrent()), expected ',' or ']'")
            }
        }
    }

    /// A number as RFC 8259 spells it: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    mutating func number() throws(JSONValue.ParseError) -> Double {
        let start = position
        func digits(_ parser: inout JSONParser) -> Int {
            let from = parser.position
            while let byte = parser.current, (0x30...0x39).contains(byte) { parser.position += 1 }
            return parser.position - from
        }
        if current == UInt8(ascii: "-") { position += 1 }
        if current == UInt8(ascii: "0") {
            position += 1
            if let byte = current, (0x30...0x39).contains(byte) { throw error("a number cannot start with 0") }
        } else if digits(&self) == 0 {
            throw error("unexpected \(describeCurrent()), expected a digit")
        }
        if current == UInt8(ascii: ".") {
            position += 1
            guard digits(&self) > 0 else { throw error("unexpected \(describeCurrent()), expected a digit after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard digits(&self) > 0 else { throw error("unexpected \(describeCurrent()), expected a digit in the exponent") }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            position = start
            throw error("the number \(text) is out of range")
        }
        return value
    }

    /// A string in quotes, with escapes (`\uXXXX` surrogate pairs joined) and validated UTF-8.
    mutating func string() throws(JSONValue.ParseError) -> String {
        position += 1
        var scalars = String.UnicodeScalarView()
        while true {
            guard let byte = current else { throw error("unexpected end of input in a string") }
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                position += 1
                scalars.append(try escape())
            case 0..<0x20:
                throw error("control character 0x\(String(byte, radix: 16, uppercase: true)) in a string")
            case 0..<0x80:
                scalars.append(Unicode.Scalar(byte))
                position += 1
            default:
                scalars.append(try utf8Scalar())
            }
        }
    }

    /// The character after a backslash.
    mutating func escape() throws(JSONValue.ParseError) -> Unicode.Scalar {
        guard let byte = current else { throw error("unexpected end of input in a string") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try hex4()
            if (0xDC00...0xDFFF).contains(unit) { throw error("a low surrogate \\u\(String(unit, radix: 16)) without a high one") }
            guard (0xD800...0xDBFF).contains(unit) else { return Unicode.Scalar(unit)! }
            guard current == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u") else {
                throw error("a high surrogate \\u\(String(unit, radix: 16)) without a low one")
            }
            position += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw error("a high surrogate \\u\(String(unit, radix: 16)) without a low one") }
            return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!
        default:
            position -= 1
            throw error("unknown escape \\\(describeCurrent())")
        }
    }

    mutating func hex4() throws(JSONValue.ParseError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = Self.hexValue(byte) else {
                throw error("unexpected \(describeCurrent()), expected four hex digits after \\u")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }

    /// One multi-byte UTF-8 sequence (no overlongs, surrogates or values above U+10FFFF).
    mutating func utf8Scalar() throws(JSONValue.ParseError) -> Unicode.Scalar {
        let lead = bytes[position]
        let length: Int
        var value: UInt32
        switch lead {
        case 0xC2...0xDF: length = 2; value = UInt32(lead & 0x1F)
        case 0xE0...0xEF: length = 3; value = UInt32(lead & 0x0F)
        case 0xF0...0xF4: length = 4; value = UInt32(lead & 0x07)
        default: throw error("invalid UTF-8")
        }
        guard position + length <= bytes.count else { throw error("invalid UTF-8") }
        for offset in 1..<length {
            let byte = bytes[position + offset]
            guard byte & 0xC0 == 0x80 else { throw error("invalid UTF-8") }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        let minimum: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { throw error("invalid UTF-8") }
        position += length
        return scalar
    }
}
