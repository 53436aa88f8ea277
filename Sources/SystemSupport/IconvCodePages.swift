// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Decodes text in Windows code pages with glibc's iconv, for the pages RichText has no table for:
/// the double-byte 932 (Shift-JIS as Windows extends it), 936 (GBK), 949 (UHC), 950 (Big5), 1361 (Johab)
/// and rarer single-byte pages. Each call opens and closes its own converter, so a value is safe to share.
///
/// Its `decode(_:codePage:)` has the shape of RichText's `CodePageDecoder`; the callers that inject it
/// (pb, the daemon, tests) declare the conformance, since this door sits below the pure core.
public struct IconvCodePages: Sendable {
    public init() {}

    /// The name glibc's gconv knows a Windows code page by, or nil for numbers that name no code page.
    public static func iconvName(codePage: Int) -> String? {
        switch codePage {
        case 10000: return "MACINTOSH"
        case 20127: return "ASCII"
        case 20866: return "KOI8-R"
        case 21866: return "KOI8-U"
        case 28591...28599: return "ISO-8859-\(codePage - 28590)"
        case 65001: return "UTF-8"
        case 1..<65536: return "CP\(codePage)"
        default: return nil
        }
    }

    /// The text of `bytes` in `codePage`, or nil if iconv does not know the page or the bytes are not
    /// valid (or end inside a character) in it.
    ///
    /// The corresponding C functions are `iconv_open(3)`, `iconv(3)` and `iconv_close(3)`.
    public func decode(_ bytes: [UInt8], codePage: Int) -> String? {
        guard let name = Self.iconvName(codePage: codePage) else { return nil }
        let converter = iconv_open("UTF-8", name)
        guard Int(bitPattern: converter) != -1 else { return nil }
        defer { iconv_close(converter) }
        if bytes.isEmpty { return "" }
        var input = bytes
        var output = [UInt8](repeating: 0, count: bytes.count * 4 + 16)
        let written: Int? = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                var inPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(inBuffer.baseAddress!)
                    .assumingMemoryBound(to: CChar.self)
                var inLeft = inBuffer.count
                var outPointer: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(outBuffer.baseAddress!)
                    .assumingMemoryBound(to: CChar.self)
                var outLeft = outBuffer.count
                // E2BIG cannot happen: no code page needs more than four UTF-8 bytes per input byte.
                guard iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft) != -1, inLeft == 0 else { return nil }
                guard iconv(converter, nil, nil, &outPointer, &outLeft) != -1 else { return nil }
                return outBuffer.count - outLeft
            }
        }
        guard let written else { return nil }
        return String(decoding: output[..<written], as: UTF8.self)
    }
}
