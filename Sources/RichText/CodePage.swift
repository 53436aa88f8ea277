// SPDX-License-Identifier: Apache-2.0
/// Decodes bytes in a Windows code page that RichText has no table for: the double-byte pages (932, 936, 949,
/// 950, 1361) and rarer single-byte ones. RichText is pure, so a decoder over the system's converters (iconv) is
/// injected by its callers; `BuiltInCodePages` is the default.
public protocol CodePageDecoder: Sendable {
    /// The text of `bytes` in Windows code page `codePage`, or nil if the page is unknown or the bytes are
    /// not valid in it (the whole buffer, not a prefix).
    func decode(_ bytes: [UInt8], codePage: Int) -> String?
}

/// The decoder built into RichText: the single-byte pages of `CodePageTables` (437, 850, 874, 1250–1258 and
/// 10000 Mac Roman); nil for every other page, so double-byte text becomes U+FFFD without a system decoder.
public struct BuiltInCodePages: CodePageDecoder {
    public init() {}

    public func decode(_ bytes: [UInt8], codePage: Int) -> String? {
        guard let high = CodePageTables.high(codePage) else { return nil }
        var scalars = String.UnicodeScalarView()
        for byte in bytes {
            scalars.append(byte < 0x80 ? Unicode.Scalar(byte) : Unicode.Scalar(high[Int(byte - 0x80)])!)
        }
        return String(scalars)
    }
}

/// A Windows code page that decodes bytes one character at a time, never failing.
///
/// Single-byte pages decode through a 256-entry table built once (from `CodePageTables`, else from the
/// decoder one byte at a time); double-byte pages (932, 936, 949, 950, 1361) ask the decoder per lead/trail
/// pair, with a cache. Bytes a page does not define map to the Unicode character with the same value (so
/// cp1252 0x81 is U+0081); invalid pairs, and pairs the decoder does not know, become U+FFFD.
public final class CodePage {
    /// The Windows code page number, e.g. 1252, 932, 10000 (Mac Roman).
    public let number: Int
    public let isDoubleByte: Bool
    private var table: [Unicode.Scalar] = []
    private var pairs: [UInt16: String] = [:]
    private let decoder: any CodePageDecoder

    /// The pseudo code page of the Symbol font (Adobe's Symbol encoding).
    public static let symbol = -2
    /// The pseudo code page of Wingdings.
    public static let wingdings = -3
    /// The pseudo code page of other `\fcharset2` fonts: bytes keep their value.
    public static let otherSymbol = -4

    public init(_ number: Int, decoder: any CodePageDecoder = BuiltInCodePages()) {
        self.number = number
        self.decoder = decoder
        isDoubleByte = [932, 936, 949, 950, 1361].contains(number)
        if !isDoubleByte { table = (0...255).map { buildSingle(UInt8($0)) } }
    }

    /// The code page named by an RTF `\fcharsetN`, or nil for "use the document's page" (0, 1) and unknown values.
    public static func forCharset(_ charset: Int) -> Int? {
        switch charset {
        case 2: return symbol
        case 77: return 10000
        case 128: return 932
        case 129: return 949
        case 130: return 1361
        case 134: return 936
        case 136: return 950
        case 161: return 1253
        case 162: return 1254
        case 163: return 1258
        case 177: return 1255
        case 178: return 1256
        case 186: return 1257
        case 204: return 1251
        case 222: return 874
        case 238: return 1250
        case 254: return 437
        case 255: return 850
        default: return nil
        }
    }

    /// Whether `byte` starts a two-byte character in this page.
    @inline(__always)
    public func isLeadByte(_ byte: UInt8) -> Bool {
        guard isDoubleByte else { return false }
        switch number {
        case 932: return (0x81...0x9F).contains(byte) || (0xE0...0xFC).contains(byte)
        case 1361: return (0x84...0xD3).contains(byte) || (0xD8...0xDE).contains(byte) || (0xE0...0xF9).contains(byte)
        default: return (0x81...0xFE).contains(byte)
        }
    }

    /// The character for a single byte (not a lead byte).
    @inline(__always)
    public func decode(_ byte: UInt8) -> Unicode.Scalar {
        if !isDoubleByte { return table[Int(byte)] }
        if byte < 0x80 { return Unicode.Scalar(byte) }
        if let s = decoder.decode([byte], codePage: number), s.unicodeScalars.count == 1 {
            return s.unicodeScalars.first!
        }
        return "\u{FFFD}"
    }

    /// The text for a lead byte followed by a trail byte; U+FFFD if the pair is not defined.
    public func decode(lead: UInt8, trail: UInt8) -> String {
        let key = UInt16(lead) << 8 | UInt16(trail)
        if let cached = pairs[key] { return cached }
        var result = "\u{FFFD}"
        if let s = decoder.decode([lead, trail], codePage: number), !s.isEmpty { result = s }
        pairs[key] = result
        return result
    }

    /// Decodes a whole byte string character by character.
    public func decode(_ bytes: [UInt8]) -> String {
        var out = String.UnicodeScalarView()
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if isLeadByte(byte) {
                if index + 1 < bytes.count {
                    out.append(contentsOf: decode(lead: byte, trail: bytes[index + 1]).unicodeScalars)
                    index += 2
                } else {
                    out.append("\u{FFFD}")
                    index += 1
                }
            } else {
                out.append(decode(byte))
                index += 1
            }
        }
        return String(out)
    }

    private func buildSingle(_ byte: UInt8) -> Unicode.Scalar {
        if let symbolFont = SymbolFont.forCodePage(number) { return symbolFont.decode(byte) }
        if byte < 0x80 { return Unicode.Scalar(byte) }
        if let high = CodePageTables.high(number) { return Unicode.Scalar(high[Int(byte - 0x80)])! }
        if let s = decoder.decode([byte], codePage: number), s.unicodeScalars.count == 1 {
            return s.unicodeScalars.first!
        }
        return Unicode.Scalar(byte)
    }

    /// Mac OS Roman 0x80–0xFF.
    static let macRoman: [Unicode.Scalar] = CodePageTables.cp10000.map { Unicode.Scalar($0)! }
}

/// Windows-1252 as a table, for writers that need the reverse mapping without Foundation.
enum Windows1252 {
    /// Characters of bytes 0x80–0x9F; nil where cp1252 defines nothing.
    static let high: [Unicode.Scalar?] = [
        "\u{20AC}", nil, "\u{201A}", "\u{0192}", "\u{201E}", "\u{2026}", "\u{2020}", "\u{2021}",
        "\u{02C6}", "\u{2030}", "\u{0160}", "\u{2039}", "\u{0152}", nil, "\u{017D}", nil,
        nil, "\u{2018}", "\u{2019}", "\u{201C}", "\u{201D}", "\u{2022}", "\u{2013}", "\u{2014}",
        "\u{02DC}", "\u{2122}", "\u{0161}", "\u{203A}", "\u{0153}", nil, "\u{017E}", "\u{0178}",
    ]

    /// The cp1252 byte for a character, or nil if it has none (ASCII included).
    static func byte(for scalar: Unicode.Scalar) -> UInt8? {
        let v = scalar.value
        if v < 0x80 { return UInt8(v) }
        if v >= 0xA0 && v <= 0xFF { return UInt8(v) }
        for (index, s) in high.enumerated() where s == scalar { return UInt8(0x80 + index) }
        return nil
    }
}
