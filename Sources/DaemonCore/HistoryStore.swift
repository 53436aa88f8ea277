// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import SystemSupport

/// The clipboard history: a bounded list of past contents, newest first, never holding secrets.
///
/// On disk (unless RAM-only) under `$XDG_STATE_HOME/pasteboard/history/`: one archive per entry
/// (`<id>.archive`, mode 0600, written atomically) and an `index` file listing the entries, rewritten
/// atomically after each change, so that a crash at any moment leaves a consistent history (an archive
/// without an index line is removed at start; an index line without its archive is dropped). The files are
/// written by `writer`, off the event loop, in order: an entry's archive before the index that lists it.
final class HistoryStore {
    struct Entry: Equatable {
        var id: UInt64
        var time: Int64
        var pasteboard: PasteboardName
        var types: [String]
        var size: UInt64
        var preview: String
        var digest: UInt64
        /// Who copied it, when known.
        var source: ContentSource? = nil
    }

    private let directory: String?
    /// The most entries; lowering it drops the oldest at once.
    var maximumEntries: Int { didSet { enforceLimits() } }
    /// The most bytes of content the entries hold in all (`historyMaxBytes`: each entry's representations'
    /// bytes, what its archive holds less the archive's few bytes of framing); the oldest go first, at once
    /// when it is lowered, and an entry larger than all of it is never added.
    var maximumBytes: Int { didSet { enforceLimits() } }
    var deduplicate: Bool
    private(set) var entries: [Entry] = []   // newest first
    private var memory: [UInt64: PasteboardContent] = [:]   // RAM-only mode
    /// The newest entry made by committing the file it was read into, with its content read from that file (a
    /// descriptor and the small representations): what `content(at:)` gives while the writer may not have named it.
    private var lastCommitted: (id: UInt64, content: PasteboardContent)?
    private var nextID: UInt64 = 1
    private let writer: BackgroundWriter

    /// Failures to write are reported by `writer` (its owner logs them).
    init(directory: String?, maximumEntries: Int, maximumBytes: Int, deduplicate: Bool, writer: BackgroundWriter) {
        self.directory = directory
        self.writer = writer
        self.maximumEntries = maximumEntries
        self.maximumBytes = maximumBytes
        self.deduplicate = deduplicate
        load()
    }

    private var indexPath: String? { directory.map { $0 + "/index" } }
    private func archivePath(_ id: UInt64) -> String? { directory.map { $0 + "/\(id).archive" } }

    /// Adds `content` (the caller has already excluded secrets). With de-duplication, a copy equal to
    /// the newest entry moves nothing. Entries live on disk, whatever their size (without a directory —
    /// RAM-only — in memory). Content larger than `maximumBytes` is not added. Returns the file that
    /// holds exactly this content as an archive (the new entry's, or the equal newest one's) when there is
    /// one on disk, so the kept clipboard can be that same file rather than a second copy.
    ///
    /// Content read straight into its archive's file (`incoming`, its `digest` made on the way) becomes the entry
    /// by that file's commit (`IncomingArchive.commit`), not by a second write; when it is not the entry's (an equal
    /// newest, no room, RAM-only) it is left uncommitted, for the caller.
    @discardableResult
    func add(_ content: PasteboardContent, pasteboard: PasteboardName, time: Int64, changeCount: UInt64 = 0,
             incoming: (archive: IncomingArchive, digest: UInt64)? = nil) -> String? {
        guard content.byteCount <= maximumBytes else { return nil }
        let digest = incoming?.digest ?? Self.digest(of: content)
        if deduplicate, let newest = entries.first, newest.digest == digest, newest.pasteboard == pasteboard {
            return memory[newest.id] == nil ? archivePath(newest.id) : nil
        }
        let entry = Entry(id: nextID, time: time, pasteboard: pasteboard, types: content.types.map(\.rawValue),
                          size: UInt64(content.byteCount), preview: content.preview(), digest: digest, source: content.source)
        nextID += 1
        var file: String?
        if let path = archivePath(entry.id) {
            let archive = ContentArchive(pasteboard: pasteboard, changeCount: changeCount, time: time, content: content)
            if let change = incoming?.archive.commit(as: path, archive) {
                writer.submit(change)
                // Until the writer has named the file, its entry is read from what holds it open.
                lastCommitted = (entry.id, content)
            } else {
                writer.submit(.writeSegments(path: path, segments: archive.encodeSegments(), mode: 0o600))
            }
            file = path
        } else {
            memory[entry.id] = content
        }
        entries.insert(entry, at: 0)
        trim()
        saveIndex()
        return entries.first?.id == entry.id ? file : nil
    }

    /// The content of the entry at `index` (0 = newest); nil when there is no such entry, or none of its
    /// representations can be read back. Representations that cannot be kept are added to `skipped`.
    func content(at index: Int, skipped: inout [SkippedRepresentation]) -> PasteboardContent? {
        guard entries.indices.contains(index) else { return nil }
        let id = entries[index].id
        if let content = memory[id] { return content }
        if let committed = lastCommitted, committed.id == id { return committed.content }
        // An entry still on its way to the disk is read from the writer's queue; one on disk is opened, its
        // large representations left in the file (served from there when it is copied back).
        guard let path = archivePath(id) else { return nil }
        let archive: ContentArchive?
        if let bytes = writer.pendingBytes(for: path) {
            archive = try? ContentArchive.decode(bytes, skipped: &skipped)
        } else {
            archive = try? ContentArchive.open(path: path, contentBytes: maximumBytes, skipped: &skipped)
        }
        guard let archive, !archive.content.items.isEmpty else { return nil }
        return archive.content
    }

    func delete(at index: Int) -> Bool {
        guard entries.indices.contains(index) else { return false }
        remove(entries.remove(at: index))
        saveIndex()
        return true
    }

    /// Removes every entry, on disk too.
    func clear() {
        for entry in entries { remove(entry) }
        entries = []
        saveIndex()
        if let directory { writer.submit(.sweep(directory: directory, suffixes: [".archive"])) }
    }

    private func remove(_ entry: Entry) {
        memory[entry.id] = nil
        if lastCommitted?.id == entry.id { lastCommitted = nil }
        if let path = archivePath(entry.id) { writer.submit(.remove(path: path)) }
    }

    /// Drops the entries larger than the whole budget (they can never fit: a limit was lowered), then the
    /// oldest until the limits hold; true when any went.
    @discardableResult
    private func trim() -> Bool {
        var dropped = false
        for entry in entries where Int(entry.size) > maximumBytes {
            remove(entry)
            dropped = true
        }
        entries.removeAll { Int($0.size) > maximumBytes }
        var total = entries.reduce(0) { $0 + Int($1.size) }
        while entries.count > maximumEntries || (total > maximumBytes && !entries.isEmpty) {
            let oldest = entries.removeLast()
            total -= Int(oldest.size)
            remove(oldest)
            dropped = true
        }
        return dropped
    }

    /// The limits applied to what the history holds now (at start, and when the configuration lowers them).
    private func enforceLimits() {
        if trim() { saveIndex() }
    }

    // MARK: - Index file: one entry per line, fields separated by tabs, preview last.

    private func saveIndex() {
        guard let path = indexPath else { return }
        var text = "next\t\(nextID)\n"
        for e in entries {
            text += "\(e.id)\t\(e.time)\t\(e.pasteboard.rawValue)\t\(e.size)\t\(e.digest)\t\(e.types.map(Self.escaped).joined(separator: " "))\t\(e.preview)"
            // Who copied it, after the preview (which holds no tab: `OneLine`): an index without it still reads.
            if let source = e.source { text += "\t\(Self.escaped(source.application))\t\(source.processID ?? 0)" }
            text += "\n"
        }
        writer.submit(.write(path: path, bytes: Array(text.utf8), mode: 0o600))
    }

    /// A type name as the index holds it: `%XX` for each byte that would end its field or line (controls,
    /// space, `%`), so that a name with spaces (LibreOffice's descriptor has some) is one name again on reading.
    static func escaped(_ type: String) -> String {
        guard type.utf8.contains(where: { $0 <= 0x20 || $0 == 0x25 || $0 == 0x7F }) else { return type }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in type.utf8 {
            if byte <= 0x20 || byte == 0x25 || byte == 0x7F {
                out += [0x25, hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `escaped` undone; a `%` not followed by two hex digits is itself.
    static func unescaped(_ field: String) -> String {
        guard field.utf8.contains(0x25) else { return field }
        let bytes = Array(field.utf8)
        func digit(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: byte - 0x30
            case 0x41...0x46: byte - 0x41 + 10
            case 0x61...0x66: byte - 0x61 + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x25, index + 2 < bytes.count,
               let high = digit(bytes[index + 1]), let low = digit(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private func load() {
        guard let directory, let indexPath else { return }
        try? FileSystem.createDirectory(directory, mode: 0o700, intermediate: true)
        let lines = (try? FileSystem.readFile(indexPath, limit: 16 << 20)).map { String(decoding: $0, as: UTF8.self) }?
            .split(separator: "\n", omittingEmptySubsequences: true) ?? []
        var known: Set<UInt64> = []
        for line in lines {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            if f.count == 2, f[0] == "next", let n = UInt64(f[1]) { nextID = max(nextID, n); continue }
            guard f.count == 7 || f.count == 9, let id = UInt64(f[0]), let time = Int64(f[1]), let name = PasteboardName.named(f[2]),
                  let size = UInt64(f[3]), let digest = UInt64(f[4]), let path = archivePath(id),
                  FileSystem.fileExists(path) else { continue }
            entries.append(Entry(id: id, time: time, pasteboard: name, types: f[5].split(separator: " ").map { Self.unescaped(String($0)) },
                                 size: size, preview: f[6], digest: digest,
                                 source: f.count == 9 ? ContentSource(application: Self.unescaped(f[7]), processID: Int32(f[8])) : nil))
            known.insert(id)
            nextID = max(nextID, id + 1)
        }
        // Archives a crash left without an index line are removed.
        for name in (try? FileSystem.listDirectory(directory)) ?? [] where name.hasSuffix(".archive") {
            if let id = UInt64(name.dropLast(".archive".count)), !known.contains(id) {
                try? FileSystem.removeFile(directory + "/" + name, ignoreMissing: true)
            }
        }
        // Limits lowered since the last run hold from the start.
        enforceLimits()
    }

    /// A 64-bit digest of every type and byte, for de-duplication (`ContentDigest`: each representation's type,
    /// then its bytes, in order): FNV-1a's prime over 8-byte words in four lanes (the words of each 32-byte block go
    /// one to each lane, so four multiplications run at once: one chain cost a 10 MiB copy 3.6 ms of the loop in
    /// perf's samples, four 2.3 ms, most of it now waiting for the bytes to come from memory), the lanes, the words
    /// left, the tail and each length then mixed into one, so that moving bytes between representations changes it.
    /// Not cryptographic: two different contents share a digest with a chance of about 2^-64, and the newer would then
    /// not be recorded as a new entry. (Digests written before the lanes differ from today's: a first copy equal to
    /// the newest entry of an older version's history is recorded once more.) A copy read straight into its file is
    /// digested on its way there, to the same value (`IncomingArchive.digest(of:)`).
    static func digest(of content: PasteboardContent) -> UInt64 {
        var digest = ContentDigest()
        for item in content.items {
            for representation in item.representations { digest.mix(representation) }
        }
        return digest.value
    }
}
