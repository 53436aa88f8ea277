// SPDX-License-Identifier: Apache-2.0
/// Encodes and decodes X's COMPOUND_TEXT, which only Xlib knows; the X door provides it. Calls are made
/// on the thread that owns the X connection (`Converter.needsCallerThread`).
public protocol CompoundTextCodec {
    /// COMPOUND_TEXT for UTF-8 text, or nil when it cannot be encoded.
    func compoundText(fromUTF8 text: [UInt8]) -> [UInt8]?
    /// UTF-8 text from COMPOUND_TEXT, or nil when the bytes do not decode.
    func utf8(fromCompoundText bytes: [UInt8]) -> [UInt8]?
}
