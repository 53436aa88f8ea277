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

    /// Parses the prefix at the start of `bytes`; `maximumFrameLength` as the frame decoder's.
    /// A frame that claims this shape but whose lengths do not add up is `otherFrame`, for the ordinary
    /// decoder to reject with its precise error.
    public static func parse(_ bytes: ArraySlice<UInt8>,
                             maximumFrameLength: Int = ControlLimits.defaultMaximumFrameLength) -> Parse {
        var reader = Reader(bytes: bytes)
        guard let bodyLength = reader.u32() else { return .needMore }
        guard Int(bodyLength) <= maximumFrameLength else { return .otherFrame }
        guard let version = reader.u8(), let kind = reader.u16() else { return .needMore }
        guard version == ControlProtocolVersion.current, kind == ControlResponse.Kind.items.rawValue else { return .otherFrame }
        guard let items = reader.u32() else { return .needMore }
        guard items == 1 else { return .otherFrame }
        guard let representations = reader.u32() else { return .needMore }
        guard representations == 1 else { return .otherFrame }
        guard let typeLength = reader.u32() else { return .needMore }
        guard typeLength >= 1, typeLength <= ControlLimits.maximumTypeNameLength else { return .otherFrame }
        guard let typeBytes = reader.take(Int(typeLength)) else { return .needMore }
        guard !typeBytes.contains(0), let type = String(validating: typeBytes, as: UTF8.self) else { return .otherFrame }
        guard let dataLength = reader.u32() else { return .needMore }
        let prefixLength = reader.offset
        guard Int(bodyLength) == prefixLength - FrameEncoder.headerLength + Int(dataLength) else { return .otherFrame }
        return .prefix(SingleRepresentationPrefix(type: type, prefixLength: prefixLength, dataLength: Int(dataLength)))
    }

    /// Little-endian fields from the front of a slice; nil when the slice ends first.
    private struct Reader {
        let bytes: ArraySlice<UInt8>
        var offset = 0

        mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard bytes.count - offset >= count else { return nil }
            let start = bytes.startIndex + offset
            offset += count
            return bytes[start..<start + count]
        }

        mutating func u8() -> UInt8? { take(1)?.first }
        mutating func u16() -> UInt16? { take(2).map { UInt16(littleEndian: $0) } }
        mutating func u32() -> UInt32? { take(4).map { UInt32(littleEndian: $0) } }
    }
}

private extension FixedWidthInteger {
    init(littleEndian bytes: ArraySlice<UInt8>) {
        self = bytes.reversed().reduce(0) { $0 << 8 | Self($1) }
    }
}
