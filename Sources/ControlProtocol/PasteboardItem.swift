// SPDX-License-Identifier: Apache-2.0
import PasteboardCore

// The control protocol carries the model's own `PasteboardItem`: a valid item is a valid message part.

// MARK: - Wire encoding

extension PasteboardItem {
    func encode(into writer: inout WireWriter) {
        writer.array(representations) { writer, representation in
            writer.string(representation.type.rawValue)
            writer.representationBytes(representation)
        }
    }

    /// Bytes `encode` copies into the writer's own buffer, to size it up front: large data is shared
    /// (`WireWriter.sharedBytes`) or streamed from its source, never copied there, so it is not counted.
    var encodedLength: Int {
        representations.reduce(4) {
            $0 + 8 + $1.type.rawValue.utf8.count + ($1.byteCount < WireWriter.sharingThreshold ? $1.byteCount : 0)
        }
    }

    /// Decodes one item as `PasteboardItem.keeping` keeps a peer's representations: one whose type no item
    /// may carry (a name that is empty, too long, not UTF-8 or with a NUL), a type given again, one past the
    /// limit costs only itself and is added to `skipped`; nil when none is left. A representation whose
    /// data the reader deferred (see `WireReader.deferringFieldsOf`) is added to `deferredAt` as (its
    /// item's `index`, its index among those kept), with empty data for now.
    static func decode(from reader: inout WireReader, field: @autoclosure () -> String, index item: Int = 0,
                       deferredAt: inout [(item: Int, representation: Int)],
                       skipped: inout [SkippedRepresentation]) throws -> PasteboardItem? {
        // Which decoded representation each range deferred while reading this item belongs to.
        var deferred: [(representation: Int, range: Int)] = []
        var unreadable: [Int: String] = [:]
        // Smallest representation: a u32 type length + a u32 data length. Any count the bytes can hold:
        // `keeping` keeps the first the limit allows.
        let representations = try reader.array(field() + ".representations", maximum: .max, minimumElementSize: 8) { reader, index in
            let name = try reader.bytes(field() + ".representations[\(index)].type")
            let type = String(validating: name, as: UTF8.self)
            if type == nil { unreadable[index] = "its name is not UTF-8" }
            let before = reader.deferred.count
            let data = try reader.bytes(field() + ".representations[\(index)].data")
            if reader.deferred.count > before { deferred.append((index, before)) }
            return Representation(type: PasteboardType(type ?? String(decoding: name, as: UTF8.self)), data: data)
        }
        guard !representations.isEmpty else {
            throw ControlProtocolError.invalidValue(field: field(), reason: "\(PasteboardItemError.empty)")
        }
        let (kept, left) = PasteboardItem.keptIndices(of: representations, knownProblems: unreadable)
        skipped += left
        let keptPosition = Dictionary(uniqueKeysWithValues: kept.enumerated().map { ($1, $0) })
        reader.forgetDeferred(at: deferred.filter { keptPosition[$0.representation] == nil }.map(\.range))
        guard !kept.isEmpty else { return nil }
        for entry in deferred {
            if let position = keptPosition[entry.representation] { deferredAt.append((item, position)) }
        }
        do {
            return try PasteboardItem(kept.map { representations[$0] })
        } catch {
            preconditionFailure("representations kept by the rules of an item make no item: \(error)")
        }
    }
}

extension [PasteboardItem] {
    func encode(into writer: inout WireWriter) {
        writer.array(self) { writer, item in item.encode(into: &writer) }
    }

    var encodedLength: Int { reduce(4) { $0 + $1.encodedLength } }

    /// Decodes a list of items, noting where deferred data belongs and what was left out (see
    /// `PasteboardItem.decode`); an item none of whose representations can be kept is left out whole.
    static func decode(from reader: inout WireReader, field: @autoclosure () -> String,
                       deferredAt: inout [(item: Int, representation: Int)],
                       skipped: inout [SkippedRepresentation]) throws -> [PasteboardItem] {
        // Smallest item: a u32 count + one smallest representation.
        var deferred: [(item: Int, representation: Int)] = []
        var left: [SkippedRepresentation] = []
        var items: [PasteboardItem] = []
        let count = try reader.count(field(), maximum: PasteboardLimits.maximumItems, minimumElementSize: 12)
        for index in 0..<count {
            if let item = try PasteboardItem.decode(from: &reader, field: field() + "[\(index)]", index: items.count,
                                                    deferredAt: &deferred, skipped: &left) {
                items.append(item)
            }
        }
        deferredAt += deferred
        skipped += left
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
