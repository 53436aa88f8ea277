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

    /// Decodes one item; a representation whose data the reader deferred (see `WireReader.deferringFieldsOf`)
    /// is added to `deferredAt` as (its item's `index`, its own index), with empty data for now.
    static func decode(from reader: inout WireReader, field: @autoclosure () -> String, index item: Int = 0,
                       deferredAt: inout [(item: Int, representation: Int)]) throws -> PasteboardItem {
        var deferred: [(item: Int, representation: Int)] = []
        // Smallest representation: a u32 type length + 1 byte of type + a u32 data length.
        let representations = try reader.array(field() + ".representations", maximum: PasteboardLimits.maximumRepresentationsPerItem,
                                               minimumElementSize: 9) { reader, index in
            let type = try reader.string(field() + ".representations[\(index)].type",
                                         maximum: PasteboardLimits.maximumTypeNameLength, forbidNUL: true)
            let before = reader.deferred.count
            let data = try reader.bytes(field() + ".representations[\(index)].data")
            if reader.deferred.count > before { deferred.append((item, index)) }
            return Representation(type: PasteboardType(type), data: data)
        }
        deferredAt += deferred
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
        var deferred: [(item: Int, representation: Int)] = []
        return try decode(from: &reader, field: field(), deferredAt: &deferred)
    }

    /// Decodes a list of items, noting where deferred data belongs (see `PasteboardItem.decode`).
    static func decode(from reader: inout WireReader, field: @autoclosure () -> String,
                       deferredAt: inout [(item: Int, representation: Int)]) throws -> [PasteboardItem] {
        // Smallest item: a u32 count + one smallest representation.
        var deferred: [(item: Int, representation: Int)] = []
        let items = try reader.array(field(), maximum: PasteboardLimits.maximumItems, minimumElementSize: 13) { reader, index in
            try PasteboardItem.decode(from: &reader, field: field() + "[\(index)]", index: index, deferredAt: &deferred)
        }
        deferredAt += deferred
        return items
    }

    /// `self` with the deferred data filled in from `body`: a single deferred range becomes its
    /// representation's array in place (the body's own storage, trimmed: no copy when the caller gave up
    /// the body); several are copied out.
    func filling(_ placements: [(item: Int, representation: Int)], ranges: [Range<Int>], from body: consuming [UInt8]) -> [PasteboardItem] {
        guard !placements.isEmpty else { return self }
        var items = self
        func place(_ data: [UInt8], at place: (item: Int, representation: Int)) {
            var representations = items[place.item].representations
            representations[place.representation].data = data
            do {
                items[place.item] = try PasteboardItem(representations)
            } catch {
                preconditionFailure("an item decoded valid became invalid by its data: \(error)")
            }
        }
        if placements.count == 1 {
            var data = consume body
            data.removeSubrange(ranges[0].upperBound...)
            data.removeSubrange(..<ranges[0].lowerBound)
            place(data, at: placements[0])
        } else {
            for (index, placement) in placements.enumerated() { place([UInt8](body[ranges[index]]), at: placement) }
        }
        return items
    }
}
