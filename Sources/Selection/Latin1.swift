// SPDX-License-Identifier: Apache-2.0
/// ISO-8859-1 for the X `STRING` target, which ICCCM defines as Latin-1 plus tab and newline.
public enum Latin1 {
    /// The byte used for a character that Latin-1 cannot represent. The policy is documented in
    /// docs/formats.md: such characters become `?`, as GLib's and Java's lossy encoders do,
    /// and requestors that want every character ask for UTF8_STRING.
    public static let replacement: UInt8 = 0x3F

    /// Encodes UTF-8 text as Latin-1, replacing characters above U+00FF (and invalid UTF-8) with `?`.
    public static func encode(utf8 bytes: [UInt8]) -> [UInt8] {
        // Fast path: ASCII is identical in both encodings.
        if !bytes.contains(where: { $0 >= 0x80 }) { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                out.append(scalar.value <= 0xFF ? UInt8(scalar.value) : replacement)
            case .emptyInput:
                break loop
            case .error:
                out.append(replacement)
            }
        }
        return out
    }

    /// True when every character of the UTF-8 text has a Latin-1 byte.
    public static func canEncode(utf8 bytes: [UInt8]) -> Bool {
        if !bytes.contains(where: { $0 >= 0x80 }) { return true }
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): if scalar.value > 0xFF { return false }
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    /// Decodes Latin-1 bytes to UTF-8 (every byte is a character, so this cannot fail).
    public static func decode(_ bytes: [UInt8]) -> [UInt8] {
        if !bytes.contains(where: { $0 >= 0x80 }) { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 4)
        for b in bytes {
            if b < 0x80 { out.append(b) } else {
                out.append(0xC0 | (b >> 6))
                out.append(0x80 | (b & 0x3F))
            }
        }
        return out
    }
}
