// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import PasteboardCore

/// The on-disk form of a pasteboard's content: the items and their representations, raw, with what is
/// needed to restore it. Written atomically and read back with every length checked before allocating.
///
/// Layout (little-endian, ControlProtocol's wire primitives): magic `PBA1`, u64 changeCount, i64 time
/// (seconds since 1970), string pasteboard, u32 item count, then per item a u32 representation count
/// and per representation a string type and bytes.
struct ContentArchive: Equatable {
    var pasteboard: PasteboardName
    var changeCount: UInt64
    var time: Int64
    var content: PasteboardContent

    static let magic: [UInt8] = Array("PBA1".utf8)

    /// The most bytes read back for an archive of at most `contentBytes` of content (what the history's budget
    /// lets be written): the content, and room for its framing and type names.
    static func readLimit(contentBytes: Int) -> Int { contentBytes + (16 << 20) }

    func encode() -> [UInt8] { Array(encodeSegments().joined()) }

    /// The encoding in pieces whose concatenation is `encode()`: large representations are their own
    /// arrays, shared with the content (a 10 MiB copy is written from where it is, not copied first).
    func encodeSegments() -> [[UInt8]] {
        var writer = WireWriter(reservingCapacity: 256)
        for byte in Self.magic { writer.u8(byte) }
        writer.u64(changeCount)
        writer.i64(time)
        writer.string(pasteboard.rawValue)
        writer.array(content.items) { writer, item in
            writer.array(item.representations) { writer, representation in
                writer.string(representation.type.rawValue)
                writer.sharedBytes(representation.data)
            }
        }
        return writer.segments
    }

    enum DecodeError: Error, CustomStringConvertible {
        case notAnArchive
        case malformed(String)
        var description: String {
            switch self {
            case .notAnArchive: "not a pasteboard archive"
            case .malformed(let why): "malformed pasteboard archive: \(why)"
            }
        }
    }

    /// Reads an archive. The layout must hold together (else `DecodeError`); within it, what can be kept
    /// is: a representation whose type no item may carry (written by a version with other limits, say)
    /// costs only itself, and is listed in `skipped`.
    static func decode(_ bytes: [UInt8], skipped: inout [SkippedRepresentation]) throws -> ContentArchive {
        guard bytes.starts(with: magic) else { throw DecodeError.notAnArchive }
        var reader = WireReader(bytes, offset: magic.count)
        do {
            let count = try reader.u64("changeCount")
            let time = try reader.i64("time")
            guard let name = PasteboardName.named(try reader.string("pasteboard", maximum: PasteboardLimits.maximumPasteboardNameLength)) else {
                throw DecodeError.malformed("bad pasteboard name")
            }
            var left: [SkippedRepresentation] = []
            let items: [PasteboardItem?] = try reader.array("items", maximum: PasteboardLimits.maximumItems, minimumElementSize: 4) { reader, _ in
                // Any count the bytes can hold: `PasteboardItem.keeping` keeps the first the limit allows.
                let representations: [Representation] = try reader.array("representations", maximum: .max, minimumElementSize: 8) { reader, _ in
                    Representation(type: PasteboardType(try reader.string("type", maximum: .max)), data: try reader.bytes("data"))
                }
                let (item, skipped) = PasteboardItem.keeping(representations)
                left += skipped
                return item
            }
            try reader.expectEnd(of: "archive")
            skipped += left
            return ContentArchive(pasteboard: name, changeCount: count, time: time, content: PasteboardContent(items: items.compactMap { $0 }))
        } catch let error as DecodeError {
            throw error
        } catch {
            throw DecodeError.malformed("\(error)")
        }
    }
}
