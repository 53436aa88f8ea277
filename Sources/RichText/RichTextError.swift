// SPDX-License-Identifier: Apache-2.0
/// Why a document could not be read or written: what went wrong and where.
public struct RichTextError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The bytes are not a valid document of the format.
        case malformed
        /// The document exceeds a size, count or depth limit.
        case limitExceeded
        /// The requested conversion is not supported.
        case unsupported
        /// A file or directory could not be read or written.
        case io
    }

    public var kind: Kind
    /// The format or component, e.g. `flat RTFD`, `RTFD bundle`.
    public var format: String
    public var message: String
    /// Byte offset in the input, when meaningful.
    public var offset: Int?

    public init(_ kind: Kind, format: String, _ message: String, offset: Int? = nil) {
        self.kind = kind
        self.format = format
        self.message = message
        self.offset = offset
    }

    public var description: String {
        if let offset { return "\(format): \(message) (at byte \(offset))" }
        return "\(format): \(message)"
    }
}
