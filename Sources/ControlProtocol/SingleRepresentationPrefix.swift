// SPDX-License-Identifier: Apache-2.0
import PasteboardCore

/// The start of an `items` frame that carries one item with one representation — the answer to a
/// `read` request — parsed before its data has arrived, so that a client can pass the data on as it
/// comes in (to standard output, say) instead of holding a whole frame of 64 MiB.
///
/// Layout (docs/protocol.md): u32 body length, u8 version, u16 kind, u32 item count (1), u32
/// representation count (1), u32 type length + type, u32 data length, then the data, which ends the frame.
public struct SingleRepresentationPrefix: Hashable, Sendable {
    /// The representation's type name.
    public let type: String
    /// Bytes of the frame before the data, length header included.
    public let prefixLength: Int
    /// Bytes of data that follow the prefix.
    public let dataLength: Int

    public init(type: String, prefixLength: Int, dataLength: Int) {
        self.type = type
        self.prefixLength = prefixLength
        self.dataLength = dataLength
    }

    public enum Parse: Hashable, Sendable {
        /// Not enough bytes yet to tell.
        case needMore
        /// Some other frame (an `error`, an `items` of another shape, another version): decode it whole.
        case otherFrame
        case prefix(SingleRepresentationPrefix)
    }

    /// The longest prefix: header, version, kind, the two counts, a type of the longest name, data length.
    static let longestPrefix = FrameEncoder.headerLength + 3 + 4 + 4 + 4 + PasteboardLimits.maximumTypeNameLength + 4

    /// Parses the prefix at the start of `bytes`; `maximumFrameLength` as the frame decoder's. Fields are
    /// read with `WireReader`, so the type name obeys the same rules as in any message; running out of
    /// bytes is `needMore`. A frame that claims this shape but whose lengths do not add up is `otherFrame`,
    /// for the ordinary decoder to reject with its precise error.
    public static func parse(_ bytes: ArraySlice<UInt8>,
                             maximumFrameLength: Int = ControlLimits.defaultMaximumFrameLength) -> Parse {
        var reader = WireReader(Array(bytes.prefix(longestPrefix)))
        do {
            let bodyLength = Int(try reader.u32("length"))
            guard bodyLength <= maximumFrameLength,
                  try reader.u8("version") == ControlProtocolVersion.current,
                  try reader.u16("kind") == ControlResponse.Kind.items.rawValue,
                  try reader.u32("items") == 1,
                  try reader.u32("representations") == 1 else { return .otherFrame }
            let type = try reader.typeName("type")
            let dataLength = Int(try reader.u32("data length"))
            let prefixLength = reader.offset
            guard bodyLength == prefixLength - FrameEncoder.headerLength + dataLength else { return .otherFrame }
            return .prefix(SingleRepresentationPrefix(type: type, prefixLength: prefixLength, dataLength: dataLength))
        } catch ControlProtocolError.truncated {
            return .needMore
        } catch {
            return .otherFrame
        }
    }
}
