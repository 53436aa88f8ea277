// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import PasteboardCore
import SystemSupport
import Synchronization
import XTypes

/// The on-disk form of a pasteboard's content: the items and their representations, raw, with what is
/// needed to restore it. Written atomically and read back with every length checked before allocating.
///
/// Layout (little-endian, ControlProtocol's wire primitives): magic `PBA1`, u64 changeCount, i64 time
/// (seconds since 1970), string pasteboard, u32 item count, then per item a u32 representation count
/// and per representation a string type and bytes. Content with a rule that must outlive the daemon
/// (`Flags`: local-only) is written as `PBA2`, a u64 of flags after the time; everything else stays `PBA1`, which
/// every version reads.
struct ContentArchive: Equatable {
    var pasteboard: PasteboardName
    var changeCount: UInt64
    var time: Int64
    var content: PasteboardContent

    static let magic: [UInt8] = Array("PBA1".utf8)
    static let flaggedMagic: [UInt8] = Array("PBA2".utf8)

    /// The rules of a content kept in the archive (`PBA2`'s flags). A flag this version does not know refuses
    /// the archive: it would be a rule the daemon could not keep.
    struct Flags: OptionSet, Equatable {
        let rawValue: UInt64
        /// Copied with `--local-only` (`PasteboardOptions.localOnly`): never served through the remote socket or
        /// to a peer, after a restart as before it.
        static let localOnly = Flags(rawValue: 1)
        static let known: Flags = [.localOnly]
    }

    var flags: Flags { content.isLocalOnly ? .localOnly : [] }

    /// The most bytes read back for an archive of at most `contentBytes` of content (what the history's budget
    /// lets be written): the content, and room for its framing and type names.
    static func readLimit(contentBytes: Int) -> Int {
        let (limit, overflow) = contentBytes.addingReportingOverflow(16 << 20)
        return overflow ? .max : limit
    }

    func encode() -> [UInt8] { Array(encodeSegments().joined()) }

    /// The encoding in pieces whose concatenation is `encode()`: large representations are their own
    /// arrays, shared with the content (a 10 MiB copy is written from where it is, not copied first).
    func encodeSegments() -> [[UInt8]] {
        var writer = WireWriter(reservingCapacity: 256)
        write(into: &writer)
        return writer.segments
    }

    /// The whole encoding into `writer`: each representation's bytes shared, or, with the writer's `keepsSources`,
    /// kept in their source where they are in one (`WireWriter.representationBytes`).
    private func write(into writer: inout WireWriter) {
        for byte in flags.isEmpty ? Self.magic : Self.flaggedMagic { writer.u8(byte) }
        writer.u64(changeCount)
        writer.i64(time)
        if !flags.isEmpty { writer.u64(flags.rawValue) }
        writer.string(pasteboard.rawValue)
        writer.array(content.items) { writer, item in
            writer.array(item.representations) { writer, representation in
                writer.string(representation.type.rawValue)
                writer.representationBytes(representation)
            }
        }
    }

    /// Where the bytes of a representation of `type` start in the archive of content of one item whose
    /// representations are `kept` and then that one (any change count and time, no flags: `IncomingArchive`'s layout).
    static func dataOffset(of type: PasteboardType, after kept: [Representation], pasteboard: PasteboardName) -> Int {
        var writer = WireWriter(reservingCapacity: 256)
        writer.keepsSources = true
        for byte in magic { writer.u8(byte) }
        writer.u64(0)
        writer.i64(0)
        writer.string(pasteboard.rawValue)
        writer.count(1)
        writer.count(kept.count + 1)
        for representation in kept {
            writer.string(representation.type.rawValue)
            writer.representationBytes(representation)
        }
        writer.string(type.rawValue)
        writer.count(0)
        return writer.count
    }

    /// The archive as the file `file` holds it but for what lies outside its representations kept there: the file's
    /// length and, at their offsets, every other byte of the encoding (header, types, lengths, the representations in
    /// memory). Nil unless each representation read from a file (`ArchiveFileBytes`) is `file`'s, at the offset the
    /// encoding puts it — the one check that the file and the content are the same archive.
    func patches(into file: OpenFile) -> (length: Int, patches: [BackgroundWriter.Patch])? {
        var writer = WireWriter(reservingCapacity: 256)
        writer.keepsSources = true
        write(into: &writer)
        var offset = 0
        var patches: [BackgroundWriter.Patch] = []
        for piece in writer.pieces {
            switch piece {
            case .bytes(let bytes):
                patches.append(BackgroundWriter.Patch(offset: offset, bytes: bytes))
                offset += bytes.count
            case .source(let source):
                guard let inFile = source as? ArchiveFileBytes, inFile.file === file, inFile.offset == offset else { return nil }
                offset += inFile.count
            }
        }
        return (offset, patches)
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
        guard bytes.starts(with: magic) || bytes.starts(with: flaggedMagic) else { throw DecodeError.notAnArchive }
        var reader = WireReader(bytes, offset: magic.count)
        return try decode(&reader, flagged: bytes.starts(with: flaggedMagic), skipped: &skipped)
    }

    /// Representations at least this large read from a file (`open(_:)`) stay in it: the daemon serves them
    /// from there (page cache), not from a copy in memory. One INCR chunk's worth: anything smaller is written
    /// to a requestor in one request, read whole.
    static let servedFromFileAbove = 1 << 20

    /// Reads the archive in `file` as `decode` does, except that each representation of at least
    /// `servedFromFileAbove` bytes is not read: it stays in the file (`Representation.source`), which stays
    /// open while the content is held. Throws `DecodeError` as `decode` does, or the read's error.
    static func open(_ file: OpenFile, skipped: inout [SkippedRepresentation]) throws -> ContentArchive {
        var reader = FileArchiveReader(file: file, offset: 0, keepingInFileAbove: servedFromFileAbove)
        let prefix = try reader.prefix(magic.count)
        guard prefix == magic || prefix == flaggedMagic else { throw DecodeError.notAnArchive }
        return try decode(&reader, flagged: prefix == flaggedMagic, skipped: &skipped)
    }

    /// `open(_:skipped:)` of the archive at `path`, refused (`SystemError.limitExceeded`) when the file is larger
    /// than an archive of `contentBytes` of content can be (`readLimit`), before anything is read.
    static func open(path: String, contentBytes: Int, skipped: inout [SkippedRepresentation]) throws -> ContentArchive {
        let file = try OpenFile(readingAt: path)
        let limit = readLimit(contentBytes: contentBytes)
        guard file.size <= limit else { throw SystemError.limitExceeded(operation: "reading \(path)", limit: limit) }
        return try open(file, skipped: &skipped)
    }

    private static func decode<Reader: ArchiveReading>(_ reader: inout Reader, flagged: Bool,
                                                       skipped: inout [SkippedRepresentation]) throws -> ContentArchive {
        do {
            let count = try reader.u64("changeCount")
            let time = try reader.i64("time")
            let flags = flagged ? Flags(rawValue: try reader.u64("flags")) : []
            guard flags.isSubset(of: .known) else {
                throw DecodeError.malformed("flags 0x\(String(flags.rawValue, radix: 16)) this version does not know")
            }
            guard let name = PasteboardName.named(try reader.string("pasteboard", maximum: PasteboardLimits.maximumPasteboardNameLength, forbidNUL: false)) else {
                throw DecodeError.malformed("bad pasteboard name")
            }
            var left: [SkippedRepresentation] = []
            var items: [PasteboardItem] = []
            for _ in 0..<(try reader.count("items", maximum: PasteboardLimits.maximumItems, minimumElementSize: 4)) {
                // Any count the bytes can hold: `PasteboardItem.keeping` keeps the first the limit allows.
                var representations: [Representation] = []
                for _ in 0..<(try reader.count("representations", maximum: .max, minimumElementSize: 8)) {
                    let type = PasteboardType(try reader.string("type", maximum: .max, forbidNUL: false))
                    representations.append(try reader.representation(of: type, "data"))
                }
                let (item, skipped) = PasteboardItem.keeping(representations)
                left += skipped
                if let item { items.append(item) }
            }
            try reader.expectEnd(of: "archive")
            skipped += left
            return ContentArchive(pasteboard: name, changeCount: count, time: time,
                                  content: PasteboardContent(items: items, isLocalOnly: flags.contains(.localOnly)))
        } catch let error as DecodeError {
            throw error
        } catch let error as ControlProtocolError {
            throw DecodeError.malformed("\(error)")
        }
    }
}

/// What `ContentArchive`'s decoder reads an archive through: the bytes in memory (`WireReader`) or its file
/// (`FileArchiveReader`), with the same checks.
protocol ArchiveReading {
    mutating func u64(_ field: @autoclosure () -> String) throws -> UInt64
    mutating func i64(_ field: @autoclosure () -> String) throws -> Int64
    mutating func string(_ field: @autoclosure () -> String, maximum: Int, forbidNUL: Bool) throws -> String
    mutating func count(_ field: @autoclosure () -> String, maximum: Int, minimumElementSize: Int) throws -> Int
    /// A length-prefixed bytes field, as the representation of `type`.
    mutating func representation(of type: PasteboardType, _ field: @autoclosure () -> String) throws -> Representation
    func expectEnd(of kind: @autoclosure () -> String) throws
}

extension WireReader: ArchiveReading {
    mutating func representation(of type: PasteboardType, _ field: @autoclosure () -> String) throws -> Representation {
        Representation(type: type, data: try bytes(field()))
    }
}

/// An archive read from its file a window at a time (`pread`), the fields checked as `WireReader` checks
/// them; a representation of at least `keepingInFileAbove` bytes is not read but left in the file
/// (`ArchiveFileBytes`).
struct FileArchiveReader: ArchiveReading {
    let file: OpenFile
    private(set) var offset: Int
    let keepingInFileAbove: Int
    private var window: [UInt8] = []
    private var windowStart = 0
    private static let windowSize = 64 << 10

    init(file: OpenFile, offset: Int, keepingInFileAbove: Int) {
        self.file = file
        self.offset = offset
        self.keepingInFileAbove = keepingInFileAbove
    }

    var remaining: Int { file.size - offset }

    /// The first `count` bytes of the file (fewer if it is shorter); the reader moves past them.
    mutating func prefix(_ count: Int) throws -> [UInt8] {
        let bytes = try take(min(count, remaining), "magic")
        return bytes
    }

    mutating func u64(_ field: @autoclosure () -> String) throws -> UInt64 { try littleEndian(field) }
    mutating func i64(_ field: @autoclosure () -> String) throws -> Int64 { try littleEndian(field) }

    mutating func string(_ field: @autoclosure () -> String, maximum: Int, forbidNUL: Bool) throws -> String {
        let length = try lengthPrefix(field, maximum: maximum)
        let start = offset
        let bytes = try take(length, field())
        guard let value = String(validating: bytes, as: UTF8.self), !(forbidNUL && bytes.contains(0)) else {
            throw ControlProtocolError.invalidUTF8(field: field(), offset: start)
        }
        return value
    }

    mutating func count(_ field: @autoclosure () -> String, maximum: Int, minimumElementSize: Int) throws -> Int {
        let count = Int(try littleEndian(field) as UInt32)
        guard count <= maximum else { throw ControlProtocolError.tooLong(field: field(), length: count, maximum: maximum) }
        if minimumElementSize > 0 && count > remaining / minimumElementSize {
            throw ControlProtocolError.countExceedsRemainingBytes(field: field(), count: count, remaining: remaining)
        }
        return count
    }

    mutating func representation(of type: PasteboardType, _ field: @autoclosure () -> String) throws -> Representation {
        let length = try lengthPrefix(field, maximum: .max)
        guard length >= keepingInFileAbove else { return Representation(type: type, data: try take(length, field())) }
        defer { offset += length }
        return Representation(type: type, source: ArchiveFileBytes(file: file, offset: offset, count: length))
    }

    func expectEnd(of kind: @autoclosure () -> String) throws {
        if remaining != 0 { throw ControlProtocolError.trailingBytes(kind: kind(), count: remaining) }
    }

    private mutating func lengthPrefix(_ field: () -> String, maximum: Int) throws -> Int {
        let length = Int(try littleEndian(field) as UInt32)
        guard length <= maximum else { throw ControlProtocolError.tooLong(field: field(), length: length, maximum: maximum) }
        guard remaining >= length else {
            throw ControlProtocolError.truncated(field: field(), offset: offset, needed: length, available: remaining)
        }
        return length
    }

    private mutating func littleEndian<T: FixedWidthInteger>(_ field: () -> String) throws -> T {
        let bytes = try take(MemoryLayout<T>.size, field())
        var value: T = 0
        for (index, byte) in bytes.enumerated() { value |= T(byte) << (8 * index) }
        return value
    }

    /// The next `count` bytes (from the window, refilled as needed; a long field read on its own).
    private mutating func take(_ count: Int, _ field: @autoclosure () -> String) throws -> [UInt8] {
        guard remaining >= count else {
            throw ControlProtocolError.truncated(field: field(), offset: offset, needed: count, available: remaining)
        }
        defer { offset += count }
        if count > Self.windowSize { return try file.read(count: count, at: offset) }
        if offset < windowStart || offset + count > windowStart + window.count {
            window = try file.read(count: min(Self.windowSize, remaining), at: offset)
            windowStart = offset
        }
        return Array(window[(offset - windowStart)..<(offset - windowStart + count)])
    }
}

/// A representation's bytes left in its archive: `count` bytes at `offset` of an open file, read on demand
/// (`ByteSource`). The file stays open as long as something holds them; the daemon replaces its archives by
/// rename, so what was opened keeps its bytes.
final class ArchiveFileBytes: ByteSource {
    let file: OpenFile
    let offset: Int
    let count: Int

    init(file: OpenFile, offset: Int, count: Int) {
        self.file = file
        self.offset = offset
        self.count = count
    }

    func read(_ range: Range<Int>) throws -> [UInt8] {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "a read within the representation")
        return try file.read(count: range.count, at: offset + range.lowerBound)
    }

    /// The bytes of `range` read into one buffer the process reuses (`scratch`) when the range is a chunk's size
    /// or less — an INCR chunk sent from the file, a relayed one read back — so sending a file does not fault in a
    /// fresh mapping per chunk (blocks of 1 MiB are mappings of their own: `MemoryRelease.holdLargeBlocksApart`);
    /// a larger range is read into an array of its own.
    func withBytes(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> Void) throws {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "a read within the representation")
        guard range.count <= Self.scratchBytes else { return try read(range).withUnsafeBytes(body) }
        try Self.scratch.withLock { buffer in
            let room = UnsafeMutableRawBufferPointer(rebasing: buffer.pointer[0..<range.count])
            try file.descriptor.read(filling: room, at: offset + range.lowerBound)
            body(UnsafeRawBufferPointer(room))
        }
    }

    /// The largest range `withBytes` reads into `scratch`: an INCR chunk (`SelectionResponder.sizes`).
    static let scratchBytes = 1 << 20
    private struct Scratch: @unchecked Sendable {
        let pointer = UnsafeMutableRawBufferPointer.allocate(byteCount: ArchiveFileBytes.scratchBytes, alignment: 64)
    }
    /// Faulted in at the first use, kept for the process's life; a lock, since a source may be read on any thread.
    private static let scratch = Mutex(Scratch())
}
