import PasteboardCore

// The control protocol carries the model's own `PasteboardItem`: a valid item is a valid message part.

// MARK: - Wire encoding

extension PasteboardItem {
    func encode(into writer: inout WireWriter) {
        writer.array(representations) { writer, representation in
            writer.string(representation.type.rawValue)
            writer.sharedBytes(representation.data)
        }
    }

    /// Bytes `encode` writes, to size buffers up front.
    var encodedLength: Int {
        representations.reduce(4) { $0 + 8 + $1.type.rawValue.utf8.count + $1.data.count }
    }

    static func decode(from reader: inout WireReader, field: @autoclosure () -> String) throws -> PasteboardItem {
        // Smallest representation: a u32 type length + 1 byte of type + a u32 data length.
        let representations = try reader.array(field() + ".representations", maximum: PasteboardLimits.maximumRepresentationsPerItem,
                                               minimumElementSize: 9) { reader, index in
            let type = try reader.string(field() + ".representations[\(index)].type",
                                         maximum: PasteboardLimits.maximumTypeNameLength, forbidNUL: true)
            let data = try reader.bytes(field() + ".representations[\(index)].data")
            return Representation(type: PasteboardType(type), data: data)
        }
        do {
            return try PasteboardItem(representations)
        } catch {
            switch error {
            case .duplicateType(let type): throw ControlProtocolError.duplicateType(field: field(), type: type.rawValue)
            case .invalidTypeName(let index, let reason):
                throw ControlProtocolError.invalidValue(field: field() + ".representations[\(index)].type", reason: reason)
            case .empty, .tooManyRepresentations: throw ControlProtocolError.invalidValue(field: field(), reason: "\(error)")
            }
        }
    }
}

extension [PasteboardItem] {
    func encode(into writer: inout WireWriter) {
        writer.array(self) { writer, item in item.encode(into: &writer) }
    }

    var encodedLength: Int { reduce(4) { $0 + $1.encodedLength } }

    static func decode(from reader: inout WireReader, field: @autoclosure () -> String) throws -> [PasteboardItem] {
        // Smallest item: a u32 count + one smallest representation.
        try reader.array(field(), maximum: PasteboardLimits.maximumItems, minimumElementSize: 13) { reader, index in
            try PasteboardItem.decode(from: &reader, field: field() + "[\(index)]")
        }
    }
}
