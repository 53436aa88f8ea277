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

    func encode() -> [UInt8] {
        var writer = WireWriter(reservingCapacity: content.byteCount + 256)
        for byte in Self.magic { writer.u8(byte) }
        writer.u64(changeCount)
        writer.i64(time)
        writer.string(pasteboard.rawValue)
        writer.array(content.items) { writer, item in
            writer.array(item.representations) { writer, representation in
                writer.string(representation.type.rawValue)
                writer.bytes(representation.data)
            }
        }
        return writer.bytes
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

    static func decode(_ bytes: [UInt8]) throws -> ContentArchive {
        guard bytes.starts(with: magic) else { throw DecodeError.notAnArchive }
        var reader = WireReader(bytes, offset: magic.count)
        do {
            let count = try reader.u64("changeCount")
            let time = try reader.i64("time")
            guard let name = PasteboardName.named(try reader.string("pasteboard", maximum: 255)) else {
                throw DecodeError.malformed("bad pasteboard name")
            }
            let items: [PasteboardItem] = try reader.array("items", maximum: 1024, minimumElementSize: 4) { reader, _ in
                let pairs: [(type: PasteboardType, data: [UInt8])] = try reader.array("representations", maximum: 256, minimumElementSize: 8) { reader, _ in
                    (PasteboardType(try reader.string("type", maximum: 255)), try reader.bytes("data"))
                }
                return try PasteboardItem(pairs)
            }
            try reader.expectEnd(of: "archive")
            return ContentArchive(pasteboard: name, changeCount: count, time: time, content: PasteboardContent(items: items))
        } catch let error as DecodeError {
            throw error
        } catch {
            throw DecodeError.malformed("\(error)")
        }
    }

    /// A one-line preview of the text for history listings: at most `limit` characters, control
    /// characters shown as spaces. Empty when the content has no text.
    var preview: String {
        Self.preview(of: content)
    }

    /// A picture is shown as its type and size (`[image/png 3840×2160]`), before any text.
    static func preview(of content: PasteboardContent, limit: Int = 80) -> String {
        let picture = content.imageSummary().map { "[\($0.type) \($0.width)×\($0.height)]" }
        guard let text = content.plainText() else {
            return picture ?? content.types.first.map { "[\($0)]" } ?? ""
        }
        var out = picture.map { $0 + " " } ?? ""
        for character in String(decoding: text.prefix(limit * 4), as: UTF8.self) {
            if out.count >= limit { out += "…"; break }
            out.append(character.isNewline || character == "\t" || (character.asciiValue.map { $0 < 0x20 || $0 == 0x7F } ?? false) ? " " : character)
        }
        return out
    }
}
