import XTypes

/// The X targets that carry plain text, and how UTF-8 text is served under each of them.
///
/// Text is stored once, as UTF-8; each text target is derived on request:
/// `UTF8_STRING`, `text/plain;charset=utf-8` and `text/plain` carry the UTF-8 bytes unchanged;
/// `STRING` carries ISO-8859-1 (characters outside it become `?`, see `Latin1`); `TEXT` is answered as
/// `STRING` when every character fits Latin-1 and as `UTF8_STRING` otherwise (ICCCM lets the owner
/// choose, and the reply is never typed TEXT); `COMPOUND_TEXT` is produced by the X door's encoder.
public struct TextTargets: Sendable {
    public let atoms: StandardAtoms

    public init(atoms: StandardAtoms) { self.atoms = atoms }

    /// The text targets in the order owners conventionally list them.
    public var all: [Atom] {
        [atoms.utf8String, atoms.textPlainUTF8, atoms.textPlain, atoms.string, atoms.text, atoms.compoundText]
    }

    public func isTextTarget(_ atom: Atom) -> Bool { all.contains(atom) }

    /// The value for `target` given UTF-8 text, or nil when `target` is not a text target or cannot be
    /// produced. `compoundText` encodes UTF-8 as COMPOUND_TEXT (an Xlib service); it is called only for
    /// that target.
    public func value(for target: Atom, utf8 text: [UInt8],
                      compoundText: ([UInt8]) -> PropertyValue?) -> PropertyValue? {
        switch target {
        case atoms.utf8String:
            return PropertyValue(type: atoms.utf8String, bytes: text)
        case atoms.textPlainUTF8, atoms.textPlain:
            return PropertyValue(type: target, bytes: text)
        case atoms.string:
            return PropertyValue(type: atoms.string, bytes: Latin1.encode(utf8: text))
        case atoms.text:
            return Latin1.canEncode(utf8: text)
                ? PropertyValue(type: atoms.string, bytes: Latin1.encode(utf8: text))
                : PropertyValue(type: atoms.utf8String, bytes: text)
        case atoms.compoundText:
            return compoundText(text)
        default:
            return nil
        }
    }

    /// UTF-8 text from a value a requestor received for a text target: UTF8_STRING and the MIME types
    /// are taken as UTF-8, STRING is decoded from Latin-1, COMPOUND_TEXT through `decodeCompoundText`.
    public func utf8(from value: PropertyValue, decodeCompoundText: ([UInt8]) -> [UInt8]?) -> [UInt8]? {
        guard let bytes = value.bytes else { return nil }
        switch value.type {
        case atoms.string: return Latin1.decode(bytes)
        case atoms.compoundText: return decodeCompoundText(bytes)
        default: return bytes
        }
    }
}
