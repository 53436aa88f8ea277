// SPDX-License-Identifier: Apache-2.0
/// Which of a word processor's three character-property sets a character takes: western (Latin, Greek,
/// Cyrillic, and every weak character such as digits and punctuation), East Asian (CJK, kana, Hangul) or
/// complex (right-to-left and Indic, Thai and other shaped scripts), by Unicode block as Writer classifies them.
enum ScriptClass: UInt8, Sendable {
    case western, eastAsian, complex

    static func of(_ scalar: Unicode.Scalar) -> ScriptClass {
        switch scalar.value {
        case 0x0590...0x08FF, 0x0900...0x0DFF, 0x0E00...0x0FFF, 0x1000...0x109F, 0x1780...0x18AF, 0xFB1D...0xFDFF,
            0xFE70...0xFEFF:
            return .complex
        case 0x1100...0x11FF, 0x2E80...0x2FDF, 0x3000...0x9FFF, 0xA960...0xA97F, 0xAC00...0xD7FF, 0xF900...0xFAFF,
            0xFE30...0xFE4F, 0xFF00...0xFFEF, 0x20000...0x3FFFF:
            return .eastAsian
        default:
            return .western
        }
    }
}
