// SPDX-License-Identifier: Apache-2.0
import PasteboardCore

/// Why bytes from a peer are not a valid control message, with the field and offset where that was found.
///
/// Decoding never traps: every malformed input, however hostile, ends as one of these.
public enum ControlProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A frame header announced `length` body bytes, more than the `maximum` this side accepts.
    case frameTooLarge(length: Int, maximum: Int)
    /// The body's first byte is a protocol version this side does not speak.
    case unsupportedVersion(UInt8)
    /// The message kind is not one this side knows, for `direction` "request" or "response".
    case unknownKind(UInt16, direction: String)
    /// `field` needs `needed` bytes at `offset`, but only `available` remain.
    case truncated(field: String, offset: Int, needed: Int, available: Int)
    /// `field` declares `length` bytes or elements where at most `maximum` are allowed.
    case tooLong(field: String, length: Int, maximum: Int)
    /// `field` declares `count` elements, more than the `remaining` bytes could hold.
    case countExceedsRemainingBytes(field: String, count: Int, remaining: Int)
    /// `field` at `offset` is not valid UTF-8.
    case invalidUTF8(field: String, offset: Int)
    /// `field` has a value the protocol does not allow (a flag bit, a boolean that is not 0 or 1, an empty name…).
    case invalidValue(field: String, reason: String)
    /// An item offers `type` twice.
    case duplicateType(field: String, type: String)
    /// `count` bytes follow the last field of `kind`.
    case trailingBytes(kind: String, count: Int)

    public var description: String {
        switch self {
        case .frameTooLarge(let length, let maximum):
            return "frame announces \(length) bytes, more than the maximum of \(maximum)"
        case .unsupportedVersion(let version):
            return "protocol version \(version) is not supported (this side speaks version \(ControlProtocolVersion.current))"
        case .unknownKind(let kind, let direction):
            return "unknown \(direction) kind \(kind) (0x\(String(kind, radix: 16)))"
        case .truncated(let field, let offset, let needed, let available):
            return "\(field) at byte \(offset) is truncated: needs \(needed) bytes, \(available) left"
        case .tooLong(let field, let length, let maximum):
            return "\(field) is \(length) long, more than the maximum of \(maximum)"
        case .countExceedsRemainingBytes(let field, let count, let remaining):
            return "\(field) declares \(count) elements but only \(remaining) bytes remain"
        case .invalidUTF8(let field, let offset):
            return "\(field) at byte \(offset) is not valid UTF-8"
        case .invalidValue(let field, let reason):
            return "\(field): \(reason)"
        case .duplicateType(let field, let type):
            return "\(field) offers the type \(type) twice"
        case .trailingBytes(let kind, let count):
            return "\(count) unexpected bytes after the last field of \(kind)"
        }
    }
}

/// The protocol version carried in every message body.
public enum ControlProtocolVersion {
    /// The only version so far.
    public static let current: UInt8 = 1
}

/// Every limit a peer's bytes are held to, besides the model's own (`PasteboardLimits`). Exceeding one is a `ControlProtocolError`, never a trap.
public enum ControlLimits {
    /// The longest expiry a `setExpiringItems` may ask for: 7 days (content meant to outlive that is no
    /// expiring content; password managers clear after 10 to 45 seconds).
    public static let maximumExpiryMilliseconds: UInt64 = 7 * 24 * 3600 * 1000

    /// The default largest frame body: a copy of `PasteboardLimits.maximumCopyBytes` and its framing.
    public static let defaultMaximumFrameLength = PasteboardLimits.maximumCopyBytes + (1 << 20)
    // Items, representations, type and pasteboard names: `PasteboardLimits`.
    /// Bytes of UTF-8 in any other string (messages, previews, status values, client names).
    public static let maximumStringLength = 64 << 10
    /// Elements in any other list (status pairs, pasteboards, history entries, type lists, watch names).
    public static let maximumListCount = 65536
    /// Bytes of data in one `copyChunk`: 1 MiB (pb sends 256 KiB; a chunk is buffered whole before it counts).
    public static let maximumChunkBytes = 1 << 20
}
