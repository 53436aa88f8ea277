/// One thing on a pasteboard, offered in one or more representations (types), in the owner's order
/// of preference. Types are MIME types (`text/plain;charset=utf-8`, `image/png`) or X atom names
/// (`UTF8_STRING`); data is raw bytes, never re-encoded.
///
/// A valid item has 1…64 representations with distinct, non-empty type names of at most 255 bytes of
/// UTF-8 without NUL; the initialiser enforces that, so every `PasteboardItem` value is valid.
public struct PasteboardItem: Hashable, Sendable {
    /// One type and its bytes.
    public struct Representation: Hashable, Sendable {
        public var type: String
        public var data: [UInt8]

        public init(type: String, data: [UInt8]) {
            self.type = type
            self.data = data
        }
    }

    /// The representations, in the order they were given.
    public let representations: [Representation]

    /// An item from representations; throws `ControlProtocolError` when they break a rule above.
    public init(_ representations: [Representation]) throws {
        try self.init(representations, field: "item")
    }

    /// An item from `(type, data)` pairs; throws `ControlProtocolError` when they break a rule above.
    public init(_ pairs: [(type: String, data: [UInt8])]) throws {
        try self.init(pairs.map { Representation(type: $0.type, data: $0.data) })
    }

    init(_ representations: [Representation], field: @autoclosure () -> String) throws {
        guard !representations.isEmpty else {
            throw ControlProtocolError.invalidValue(field: field(), reason: "an item needs at least one representation")
        }
        guard representations.count <= ControlLimits.maximumRepresentationsPerItem else {
            throw ControlProtocolError.tooLong(field: field() + ".representations", length: representations.count,
                                               maximum: ControlLimits.maximumRepresentationsPerItem)
        }
        var seen = Set<String>()
        for (index, representation) in representations.enumerated() {
            let type = representation.type
            guard !type.isEmpty else {
                throw ControlProtocolError.invalidValue(field: field() + ".representations[\(index)].type", reason: "is empty")
            }
            guard type.utf8.count <= ControlLimits.maximumTypeNameLength else {
                throw ControlProtocolError.tooLong(field: field() + ".representations[\(index)].type", length: type.utf8.count,
                                                   maximum: ControlLimits.maximumTypeNameLength)
            }
            guard !type.utf8.contains(0) else {
                throw ControlProtocolError.invalidValue(field: field() + ".representations[\(index)].type", reason: "contains a NUL byte")
            }
            guard seen.insert(type).inserted else {
                throw ControlProtocolError.duplicateType(field: field(), type: type)
            }
        }
        self.representations = representations
    }

    /// The type names, in order.
    public var types: [String] { representations.map(\.type) }

    /// The bytes offered for `type`, or nil.
    public func data(forType type: String) -> [UInt8]? {
        representations.first { $0.type == type }?.data
    }

    /// Total bytes of data over all representations.
    public var byteCount: Int { representations.reduce(0) { $0 + $1.data.count } }
}

// MARK: - Wire encoding

extension PasteboardItem {
    func encode(into writer: inout WireWriter) {
        writer.array(representations) { writer, representation in
            writer.string(representation.type)
            writer.sharedBytes(representation.data)
        }
    }

    /// Bytes `encode` writes, to size buffers up front.
    var encodedLength: Int {
        representations.reduce(4) { $0 + 8 + $1.type.utf8.count + $1.data.count }
    }

    static func decode(from reader: inout WireReader, field: @autoclosure () -> String) throws -> PasteboardItem {
        // Smallest representation: a u32 type length + 1 byte of type + a u32 data length.
        let representations = try reader.array(field() + ".representations", maximum: ControlLimits.maximumRepresentationsPerItem,
                                               minimumElementSize: 9) { reader, index in
            let type = try reader.string(field() + ".representations[\(index)].type",
                                         maximum: ControlLimits.maximumTypeNameLength, forbidNUL: true)
            let data = try reader.bytes(field() + ".representations[\(index)].data")
            return Representation(type: type, data: data)
        }
        return try PasteboardItem(representations, field: field())
    }
}

extension [PasteboardItem] {
    func encode(into writer: inout WireWriter) {
        writer.array(self) { writer, item in item.encode(into: &writer) }
    }

    var encodedLength: Int { reduce(4) { $0 + $1.encodedLength } }

    static func decode(from reader: inout WireReader, field: @autoclosure () -> String) throws -> [PasteboardItem] {
        // Smallest item: a u32 count + one smallest representation.
        try reader.array(field(), maximum: ControlLimits.maximumItems, minimumElementSize: 13) { reader, index in
            try PasteboardItem.decode(from: &reader, field: field() + "[\(index)]")
        }
    }
}
