// SPDX-License-Identifier: Apache-2.0
/// Symbol-encoded fonts (RTF `\fcharset2`): what their bytes mean as Unicode characters.
///
/// Word and LibreOffice write a character of such a font either as its byte (`\'b7`) or as the byte moved into
/// the private-use area (`\u61623?` = U+F0B7). Both name the glyph at that position of the font, so the reader
/// maps them to the Unicode character with that glyph: Symbol through Adobe's Symbol encoding, Wingdings through
/// the characters Word and LibreOffice use it for in list bullets. A byte with no known character keeps its value.
enum SymbolFont: Sendable {
    case symbol, wingdings, other

    /// The symbol font a font-table entry names, or nil for a text font.
    static func forFont(name: String, charset: Int?) -> SymbolFont? {
        let lower = name.lowercased()
        if lower == "symbol" || lower.hasPrefix("symbol ") { return .symbol }
        if lower.hasPrefix("wingdings") { return .wingdings }
        return charset == 2 ? .other : nil
    }

    /// The pseudo code page under which the reader decodes this font's bytes.
    var codePage: Int {
        switch self {
        case .symbol: return CodePage.symbol
        case .wingdings: return CodePage.wingdings
        case .other: return CodePage.otherSymbol
        }
    }

    static func forCodePage(_ page: Int) -> SymbolFont? {
        switch page {
        case CodePage.symbol: return .symbol
        case CodePage.wingdings: return .wingdings
        case CodePage.otherSymbol: return .other
        default: return nil
        }
    }

    /// The character for a byte of this font, or nil when there is no known one.
    func scalar(_ byte: UInt8) -> Unicode.Scalar? {
        switch self {
        case .symbol:
            let value = SymbolFont.symbolTable[Int(byte)]
            return value == 0 ? nil : Unicode.Scalar(value)
        case .wingdings:
            return SymbolFont.wingdingsTable[byte]
        case .other:
            return nil
        }
    }

    /// A byte decoded in this font: its character, else the byte's own value.
    func decode(_ byte: UInt8) -> Unicode.Scalar { scalar(byte) ?? Unicode.Scalar(byte) }

    /// A character read before its symbol font was known: a Latin-1 one stands for its byte, a private-use
    /// one for its low byte; others are kept.
    func remap(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        scalar.value >= 0x20 && scalar.value <= 0xFF ? decode(UInt8(scalar.value)) : mapPrivateUse(scalar)
    }

    /// A private-use character U+F020–U+F0FF written for this font: its character, else unchanged.
    func mapPrivateUse(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        guard scalar.value >= 0xF020 && scalar.value <= 0xF0FF else { return scalar }
        return self.scalar(UInt8(scalar.value & 0xFF)) ?? scalar
    }

    /// Adobe's Symbol encoding (0 = undefined): ASCII positions hold Greek letters and mathematical signs.
    static let symbolTable: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 256)
        for b in 0x20...0x7E { table[b] = UInt32(b) }
        let ascii: [Int: UInt32] = [
            0x22: 0x2200, 0x24: 0x2203, 0x27: 0x220B, 0x2A: 0x2217, 0x2D: 0x2212, 0x40: 0x2245, 0x5C: 0x2234,
            0x5E: 0x22A5, 0x60: 0x203E, 0x7E: 0x223C,
        ]
        for (b, v) in ascii { table[b] = v }
        let upper = Array("ΑΒΧΔΕΦΓΗΙϑΚΛΜΝΟΠΘΡΣΤΥςΩΞΨΖ".unicodeScalars)
        let lower = Array("αβχδεφγηιϕκλμνοπθρστυϖωξψζ".unicodeScalars)
        for i in 0..<26 {
            table[0x41 + i] = upper[i].value
            table[0x61 + i] = lower[i].value
        }
        let high: [UInt32] = [
            0x20AC, 0x03D2, 0x2032, 0x2264, 0x2044, 0x221E, 0x0192, 0x2663, 0x2666, 0x2665, 0x2660, 0x2194, 0x2190,
            0x2191, 0x2192, 0x2193,  // A0–AF
            0x00B0, 0x00B1, 0x2033, 0x2265, 0x00D7, 0x221D, 0x2202, 0x2022, 0x00F7, 0x2260, 0x2261, 0x2248, 0x2026,
            0x23D0, 0x23AF, 0x21B5,  // B0–BF
            0x2135, 0x2111, 0x211C, 0x2118, 0x2297, 0x2295, 0x2205, 0x2229, 0x222A, 0x2283, 0x2287, 0x2284, 0x2282,
            0x2286, 0x2208, 0x2209,  // C0–CF
            0x2220, 0x2207, 0x00AE, 0x00A9, 0x2122, 0x220F, 0x221A, 0x22C5, 0x00AC, 0x2227, 0x2228, 0x21D4, 0x21D0,
            0x21D1, 0x21D2, 0x21D3,  // D0–DF
            0x25CA, 0x2329, 0x00AE, 0x00A9, 0x2122, 0x2211, 0x239B, 0x239C, 0x239D, 0x23A1, 0x23A2, 0x23A3, 0x23A7,
            0x23A8, 0x23A9, 0x23AA,  // E0–EF
            0, 0x232A, 0x222B, 0x2320, 0x23AE, 0x2321, 0x239E, 0x239F, 0x23A0, 0x23A4, 0x23A5, 0x23A6, 0x23AB,
            0x23AC, 0x23AD, 0,  // F0–FF
        ]
        for (i, v) in high.enumerated() { table[0xA0 + i] = v }
        return table
    }()

    /// Wingdings positions that documents use for bullets and check boxes.
    static let wingdingsTable: [UInt8: Unicode.Scalar] = [
        0x6C: "\u{25CF}",  // ●
        0x6E: "\u{25A0}",  // ■
        0x6F: "\u{25A1}",  // □
        0x71: "\u{2751}",  // ❑
        0x75: "\u{25C6}",  // ◆
        0x76: "\u{2756}",  // ❖
        0xA7: "\u{25AA}",  // ▪
        0xA8: "\u{25FB}",  // ◻
        0xD8: "\u{27A2}",  // ➢
        0xFC: "\u{2714}",  // ✔
    ]
}
