// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import PasteboardCore

/// The history's file, `history/journal`: frames appended one per change of the history (one copy: its entry, the
/// entries it pushed out, and whether it is also the kept clipboard, in one frame, one write, one fdatasync), and the
/// whole file written again, atomically, when it has grown to more than twice what it holds (`HistoryStore`).
///
/// A frame: `PBH2`, its payload's length (u32), a `ContentDigest` (u64) of the frame's offset in the file (u64) and
/// of the payload, the payload: records, one after another (a tag byte, then its fields, little-endian, strings and
/// bytes length-prefixed: `WireWriter`'s). A small entry's archive (`ContentArchive`'s bytes, what its own file would
/// hold) is inside its record; a larger one's content is in `<id>.archive` beside the journal, written before the
/// frame that names it.
///
/// Reading (`read`) takes every frame whose digest holds, in order, and skips what does not: a frame torn by a crash
/// at the end of the file, or bytes an append that failed never wrote (the search goes on at the next header). A
/// frame is the unit of a change: it is there whole or not at all. Its digest holds only where it was written: a
/// frame's bytes found anywhere else — inside a copy's archive, where any application can put them, read by the
/// search once the frame holding them is torn or damaged — are damage, not records. Frames of versions before
/// 2026-12-03 (`PBH1`, the digest of the payload alone) are read in a file that begins with them, until the first
/// `PBH2` (`Contents.legacyFrames`: the history writes such a file whole again). The search weighs at most
/// `searchBudget` bytes of frames that turn out not whole: a copy's own bytes may hold headers followed by any
/// length, and a damaged frame's bytes read as many such headers each claiming most of the file would otherwise cost
/// the square of its size at every start.
enum HistoryJournal {
    static let magic: [UInt8] = Array("PBH2".utf8)
    /// The older frames' magic: their digest is the payload's alone, wherever they lie.
    static let legacyMagic: [UInt8] = Array("PBH1".utf8)
    /// Magic, length, digest.
    static let headerBytes = 16
    /// The most bytes of a frame's payload read back: far above any frame the daemon writes (an inline archive is at
    /// most `HistoryStore.inlineBytes`; a whole file's first frame lists every entry).
    static let maximumPayload = 1 << 30
    /// The highest id an entry may have: the daemon gives them one after another from 1, so far above any it gives
    /// (one a millisecond for a hundred million years). A frame naming a higher one (or entry 0) is not the daemon's
    /// — a frame found inside another's bytes after damage, a hand-made file — and is read as damage: taken, its ids
    /// would overflow the next id.
    static let maximumID: UInt64 = 1 << 62

    /// The most bytes of payload the search past damage digests for headers whose frame is not whole, for `bytes`
    /// read: four times the file and 1 MiB. Damage costs about its own frames (a frame whose length field was hit,
    /// at most the file), so what reaches the budget is headers a copy's bytes carry; past it the rest of the file
    /// is damage.
    static func searchBudget(_ bytes: Int) -> Int { min(bytes, maximumPayload) * 4 + (1 << 20) }

    enum Record: Equatable {
        /// The id the next entry takes is at least this.
        case next(UInt64)
        /// An entry added, newest of all; its archive inline, or nil when `<id>.archive` holds it.
        case entry(HistoryStore.Entry, archive: [UInt8]?)
        /// The entry with this id is gone.
        case drop(UInt64)
        /// The kept CLIPBOARD content is this entry's (restored from it at start), or nil: not the history's.
        case kept(UInt64?)
    }

    /// Where an entry's inline archive lies in the bytes `frame` made: its offset from the frame's first byte.
    struct InlineArchive: Equatable {
        var id: UInt64
        var offset: Int
        var count: Int
    }

    /// One frame holding `records`, to be written at `offset` in the file (its digest holds there only), and where
    /// each inline archive lies in it.
    static func frame(_ records: [Record], at offset: Int) -> (bytes: [UInt8], archives: [InlineArchive]) {
        var payload = WireWriter(reservingCapacity: 256)
        var archives: [InlineArchive] = []
        for record in records {
            switch record {
            case .next(let id):
                payload.u8(1)
                payload.u64(id)
            case .entry(let entry, let archive):
                payload.u8(2)
                payload.u64(entry.id)
                payload.i64(entry.time)
                payload.string(entry.pasteboard.rawValue)
                payload.u64(entry.size)
                payload.u64(entry.digest)
                payload.array(entry.types) { $0.string($1) }
                payload.string(entry.preview)
                payload.bool(entry.source != nil)
                if let source = entry.source {
                    payload.string(source.application)
                    payload.i64(Int64(source.processID ?? 0))
                }
                payload.bool(archive != nil)
                if let archive {
                    // After the archive's u32 length.
                    archives.append(InlineArchive(id: entry.id, offset: headerBytes + payload.count + 4, count: archive.count))
                    payload.bytes(archive)
                }
            case .drop(let id):
                payload.u8(3)
                payload.u64(id)
            case .kept(let id):
                payload.u8(4)
                payload.u64(id ?? 0)
            }
        }
        return (frame(payload: payload.joined, at: offset), archives)
    }

    /// The frame of `payload` to be written at `offset`; nil: an older version's frame (`PBH1`, its digest the
    /// payload's alone), as tests make them.
    static func frame(payload: [UInt8], at offset: Int?) -> [UInt8] {
        var header = WireWriter(reservingCapacity: headerBytes)
        for byte in offset == nil ? legacyMagic : magic { header.u8(byte) }
        header.u32(UInt32(payload.count))
        header.u64(payload.withUnsafeBytes { digest(of: $0, at: offset) })
        return header.joined + payload
    }

    /// A frame's digest: of its offset, then of its payload; or of the payload alone (`at` nil: an older frame).
    private static func digest(of payload: UnsafeRawBufferPointer, at offset: Int?) -> UInt64 {
        var digest = ContentDigest()
        if let offset {
            var place = WireWriter(reservingCapacity: 8)
            place.u64(UInt64(offset))
            digest.mix(place.joined)
        }
        digest.mix(payload)
        return digest.value
    }

    /// What a journal's bytes hold.
    struct Contents {
        /// Every record of every whole frame, in order.
        var records: [Record] = []
        /// Where each inline archive lies, from the file's first byte.
        var archives: [UInt64: InlineArchive] = [:]
        /// Bytes that were not a whole frame (torn, or never written), skipped.
        var damagedBytes = 0
        /// Where the last whole frame ends: what follows it is torn.
        var end = 0
        /// Payload bytes weighed for headers whose frame was not whole (the search stops once they reach `searchBudget`).
        var searchedBytes = 0
        /// Whole frames of the older kind (`PBH1`) read.
        var legacyFrames = 0
    }

    /// The whole frames of `bytes`, in order; anything else skipped and counted.
    static func read(_ bytes: [UInt8]) -> Contents {
        var contents = Contents()
        var offset = 0
        var skippedFrom: Int?
        let budget = searchBudget(bytes.count)
        // Older frames are read in a file that begins with them, until the first frame of this kind.
        var legacy = bytes.starts(with: legacyMagic)
        while offset + headerBytes <= bytes.count {
            var weighed = 0
            if let frame = wholeFrame(in: bytes, at: offset, legacy: &legacy, weighing: &weighed, budget: budget - contents.searchedBytes) {
                if frame.legacy { contents.legacyFrames += 1 }
                if let from = skippedFrom { contents.damagedBytes += offset - from }
                skippedFrom = nil
                contents.records += frame.records
                for archive in frame.archives { contents.archives[archive.id] = InlineArchive(id: archive.id, offset: offset + archive.offset, count: archive.count) }
                offset += frame.length
                contents.end = offset
            } else {
                if skippedFrom == nil { skippedFrom = offset }
                contents.searchedBytes += weighed
                // Past the budget nothing more is weighed: the rest is damage.
                offset = contents.searchedBytes >= budget ? bytes.count : nextMagic(in: bytes, after: offset) ?? bytes.count
            }
        }
        contents.damagedBytes += bytes.count - (skippedFrom ?? contents.end)
        return contents
    }

    /// Where the next header (of either kind) begins after `offset`.
    private static func nextMagic(in bytes: [UInt8], after offset: Int) -> Int? {
        var index = offset + 1
        while index + magic.count <= bytes.count {
            if legacyHeader(bytes, at: index) != nil { return index }
            index += 1
        }
        return nil
    }

    /// Whether a header begins at `offset` (within the bytes): false for this version's magic, true for the older
    /// one's, nil for neither.
    private static func legacyHeader(_ bytes: [UInt8], at offset: Int) -> Bool? {
        // The two magics differ in their last byte alone.
        guard bytes[offset] == magic[0] && bytes[offset + 1] == magic[1] && bytes[offset + 2] == magic[2] else { return nil }
        switch bytes[offset + 3] {
        case magic[3]: return false
        case legacyMagic[3]: return true
        default: return nil
        }
    }

    /// The frame at `offset` when it is whole (its digest holds, its records parse); nil otherwise. An older frame
    /// is read while `legacy` holds, and the first whole frame of this kind ends it. `weighed` is its payload's
    /// length once its header holds; a payload longer than `budget` is not digested (nil: the budget is spent).
    private static func wholeFrame(in bytes: [UInt8], at offset: Int, legacy: inout Bool, weighing weighed: inout Int,
                                   budget: Int) -> (records: [Record], archives: [InlineArchive], length: Int, legacy: Bool)? {
        guard let isLegacy = legacyHeader(bytes, at: offset), !isLegacy || legacy else { return nil }
        var header = WireReader(Array(bytes[(offset + 4)..<(offset + headerBytes)]))
        guard let length = (try? header.u32("length")).map(Int.init), let check = try? header.u64("digest"), length <= maximumPayload,
              offset + headerBytes + length <= bytes.count else { return nil }
        weighed = length
        guard length <= budget else { return nil }
        let payload = (offset + headerBytes)..<(offset + headerBytes + length)
        let digest = bytes.withUnsafeBytes { Self.digest(of: UnsafeRawBufferPointer(rebasing: $0[payload]), at: isLegacy ? nil : offset) }
        guard digest == check, let (records, archives) = try? parse(Array(bytes[payload])) else { return nil }
        if !isLegacy { legacy = false }
        return (records, archives, headerBytes + length, isLegacy)
    }

    private static func parse(_ body: [UInt8]) throws -> ([Record], [InlineArchive]) {
        var reader = WireReader(body)
        var records: [Record] = []
        var archives: [InlineArchive] = []
        while reader.remaining > 0 {
            switch try reader.u8("record") {
            case 1:
                records.append(.next(try id(&reader, "next", upTo: maximumID + 1)))
            case 2:
                let id = try id(&reader, "id")
                let time = try reader.i64("time")
                guard let pasteboard = PasteboardName.named(try reader.string("pasteboard", maximum: 4096)) else {
                    throw ControlProtocolError.invalidValue(field: "pasteboard", reason: "not a pasteboard name")
                }
                let size = try reader.u64("size")
                guard size <= UInt64(Int.max) else { throw ControlProtocolError.invalidValue(field: "size", reason: "more bytes than any copy has") }
                let digest = try reader.u64("digest")
                let types = try reader.array("types", maximum: 1 << 16, minimumElementSize: 4) { reader, _ in try reader.string("type", maximum: 1 << 16) }
                let preview = try reader.string("preview", maximum: 1 << 16)
                var source: ContentSource?
                if try reader.bool("source") {
                    let application = try reader.string("application", maximum: 1 << 16)
                    let processID = try reader.i64("process")
                    source = ContentSource(application: application, processID: processID == 0 ? nil : Int32(truncatingIfNeeded: processID))
                }
                var archive: [UInt8]?
                if try reader.bool("inline") {
                    let offset = headerBytes + body.count - reader.remaining + 4
                    let bytes = try reader.bytes("archive")
                    archives.append(InlineArchive(id: id, offset: offset, count: bytes.count))
                    archive = bytes
                }
                records.append(.entry(HistoryStore.Entry(id: id, time: time, pasteboard: pasteboard, types: types, size: size,
                                                         preview: preview, digest: digest, source: source), archive: archive))
            case 3:
                records.append(.drop(try id(&reader, "drop")))
            case 4:
                let id = try id(&reader, "kept", from: 0)
                records.append(.kept(id == 0 ? nil : id))
            default:
                throw ControlProtocolError.invalidValue(field: "record", reason: "unknown kind")
            }
        }
        return (records, archives)
    }

    /// An id field, from `lowest` to `highest`; else the frame is not the daemon's.
    private static func id(_ reader: inout WireReader, _ field: String, from lowest: UInt64 = 1, upTo highest: UInt64 = maximumID) throws -> UInt64 {
        let id = try reader.u64(field)
        guard id >= lowest && id <= highest else {
            throw ControlProtocolError.invalidValue(field: field, reason: "an id no daemon gives")
        }
        return id
    }
}
