// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import SystemSupport

/// The clipboard history: a bounded list of past contents, newest first, never holding secrets.
///
/// On disk (unless RAM-only) under `$XDG_STATE_HOME/pasteboard/history/`: the journal (`HistoryJournal`: one frame
/// appended per change, fdatasynced; rewritten whole, atomically, once it holds more than twice what is live), which
/// lists the entries and holds the small ones' content (an archive of at most `inlineBytes`: a line costs one write
/// and one fdatasync, no new file); a larger entry's content is its own file, `<id>.archive` (mode 0600, written
/// atomically, before the frame that names it). A crash at any moment leaves a consistent history: a torn frame is
/// skipped, an archive no frame names is removed at start, an entry whose archive is gone is dropped. The files are
/// written by `writer`, off the event loop, in order. A history written by an older version (an `index` file) is
/// read and rewritten as a journal at start.
///
/// The journal also says when the kept CLIPBOARD content (what is restored at start) is one of its small entries
/// (`add(keeping:)`), in the same frame as the entry: then there is no `clipboard.archive` (it is removed), and that
/// entry's content is what `keptArchive` gives. Before that entry leaves the history, its content is written to
/// `clipboard.archive`, so the kept content outlives it as it outlives a larger entry (that file is a link).
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

    /// Where `add` put an entry's content.
    enum Placement: Equatable {
        /// In its own file, `path`: the kept clipboard can be that same file.
        case file(String)
        /// In the journal: with `keeping`, the journal says it is the kept clipboard too.
        case journal
    }

    /// The most bytes of an archive held in the journal rather than in a file of its own.
    static let inlineBytes = 16 << 10
    /// The most bytes of archives the journal holds in all (64 MiB unless a test says otherwise): past it, a small entry
    /// gets a file of its own too, so that the journal stays far below what it is read back up to
    /// (`HistoryJournal.maximumPayload`) whatever `historyLength` allows (100,000 entries of 16 KiB would be 1.6 GB).
    let inlineTotalBytes: Int

    private let directory: String?
    /// The kept CLIPBOARD content's file (`clipboard.archive`): written from the journal's entry when that entry
    /// leaves the history.
    private let keptArchivePath: String?
    /// The most entries; lowering it drops the oldest at once.
    var maximumEntries: Int { didSet { enforceLimits() } }
    /// The most bytes of content the entries hold in all (`historyMaxBytes`: each entry's representations'
    /// bytes, what its archive holds less the archive's few bytes of framing); the oldest go first, at once
    /// when it is lowered, and an entry larger than all of it is never added.
    var maximumBytes: Int { didSet { enforceLimits() } }
    var deduplicate: Bool
    private(set) var entries: [Entry] = []   // newest first
    private var memory: [UInt64: PasteboardContent] = [:]   // RAM-only mode
    /// Where each small entry's archive is in the journal (from its first byte).
    private var inline: [UInt64: (offset: Int, count: Int)] = [:]
    /// The journal's length once every frame submitted is written.
    private var journalLength = 0
    /// What each entry's record takes in a journal written whole, about: what `compactionDue` weighs.
    private var recordBytes: [UInt64: Int] = [:]
    /// The entry whose content is also the kept CLIPBOARD content, as the journal says.
    private(set) var keptID: UInt64?
    /// False once `clipboard.archive` is known to be gone (removed after the journal took the kept content over).
    private var keptFileMayExist = true
    /// The newest entry made by committing the file it was read into, with its content read from that file (a
    /// descriptor and the small representations): what `content(at:)` gives while the writer may not have named it.
    private var lastCommitted: (id: UInt64, content: PasteboardContent)?
    private var nextID: UInt64 = 1
    private let writer: BackgroundWriter

    /// Failures to write are reported by `writer` (its owner logs them).
    init(directory: String?, keptArchive: String? = nil, maximumEntries: Int, maximumBytes: Int, deduplicate: Bool,
         writer: BackgroundWriter, inlineTotalBytes: Int = 64 << 20) {
        self.directory = directory
        self.inlineTotalBytes = inlineTotalBytes
        self.keptArchivePath = directory == nil ? nil : keptArchive
        self.writer = writer
        self.maximumEntries = maximumEntries
        self.maximumBytes = maximumBytes
        self.deduplicate = deduplicate
        load()
    }

    private var journalPath: String? { directory.map { $0 + "/journal" } }
    /// The file an older version listed the entries in.
    private var legacyIndexPath: String? { directory.map { $0 + "/index" } }
    private func archivePath(_ id: UInt64) -> String? { directory.map { $0 + "/\(id).archive" } }

    /// Adds `content` (the caller has already excluded secrets). With de-duplication, a copy equal to
    /// the newest entry moves nothing. Entries live on disk, whatever their size (without a directory —
    /// RAM-only — in memory). Content larger than `maximumBytes` is not added. Returns where the entry that
    /// holds exactly this content (the new one, or the equal newest) has it on disk: its own file, so the kept
    /// clipboard can be that same file rather than a second copy, or the journal.
    ///
    /// With `keeping`, the content is also the kept CLIPBOARD content: when its entry is in the journal, the same
    /// frame says so (and `clipboard.archive` is removed); when it is in a file, the caller keeps it (a link) and
    /// then calls `keptElsewhere()`.
    ///
    /// Content read straight into its archive's file (`incoming`, its `digest` made on the way) becomes the entry
    /// by that file's commit (`IncomingArchive.commit`), not by a second write; when it is not the entry's (an equal
    /// newest, no room, RAM-only) it is left uncommitted, for the caller.
    @discardableResult
    func add(_ content: PasteboardContent, pasteboard: PasteboardName, time: Int64, changeCount: UInt64 = 0,
             incoming: (archive: IncomingArchive, digest: UInt64)? = nil, keeping: Bool = false) -> Placement? {
        // No history (`historyLength` 0): nothing is written for it, not even to be dropped at once.
        guard content.byteCount <= maximumBytes, maximumEntries > 0 else { return nil }
        let digest = incoming?.digest ?? Self.digest(of: content)
        if deduplicate, let newest = entries.first, newest.digest == digest, newest.pasteboard == pasteboard {
            guard memory[newest.id] == nil, let path = archivePath(newest.id) else { return nil }
            guard inline[newest.id] != nil else { return .file(path) }
            if keeping && keptID != newest.id { keep(newest.id, records: []) }
            return .journal
        }
        let entry = Entry(id: nextID, time: time, pasteboard: pasteboard, types: content.types.map(\.rawValue),
                          size: UInt64(content.byteCount), preview: content.preview(), digest: digest, source: content.source)
        nextID += 1
        guard let path = archivePath(entry.id) else {
            memory[entry.id] = content
            entries.insert(entry, at: 0)
            enforceLimits()
            return nil
        }
        let archive = ContentArchive(pasteboard: pasteboard, changeCount: changeCount, time: time, content: content)
        var inlineArchive: [UInt8]?
        if incoming == nil && content.byteCount <= Self.inlineBytes {
            let bytes = archive.encode()
            if bytes.count <= Self.inlineBytes && inline.values.reduce(bytes.count, { $0 + $1.count }) <= inlineTotalBytes {
                inlineArchive = bytes
            }
        }
        if inlineArchive == nil {
            if let change = incoming?.archive.commit(as: path, archive) {
                writer.submit(change)
                // Until the writer has named the file, its entry is read from what holds it open.
                lastCommitted = (entry.id, content)
            } else {
                writer.submit(.writeSegments(path: path, segments: archive.encodeSegments(), mode: 0o600))
            }
        }
        entries.insert(entry, at: 0)
        recordBytes[entry.id] = Self.estimatedRecordBytes(entry, archive: inlineArchive?.count ?? 0)
        var records: [HistoryJournal.Record] = [.entry(entry, archive: inlineArchive)]
        let removals = trim(into: &records, superseded: keeping)
        guard entries.first?.id == entry.id else {
            finish(records, removals: removals)
            return nil
        }
        if inlineArchive != nil {
            if keeping {
                keep(entry.id, records: records, removals: removals)
            } else {
                finish(records, removals: removals)
            }
            return .journal
        }
        finish(records, removals: removals)
        return .file(path)
    }

    /// The journal says entry `id` is the kept clipboard (in one frame with `records`); `clipboard.archive`, which
    /// held an older kept content, is removed once that frame is written.
    private func keep(_ id: UInt64, records: [HistoryJournal.Record], removals: [String] = []) {
        keptID = id
        finish(records + [.kept(id)], removals: removals)
        if keptFileMayExist, let keptArchivePath {
            writer.submit(.remove(path: keptArchivePath))
            keptFileMayExist = false
        }
    }

    /// The kept clipboard is not the history's (any more): the caller wrote `clipboard.archive` (or removed it).
    /// For a write, called after it is submitted, so that a crash between the two restores the older content, never
    /// none; for a removal, before it, so that a crash between them restores nothing.
    func keptElsewhere() {
        keptFileMayExist = true
        guard keptID != nil else { return }
        keptID = nil
        finish([.kept(nil)])
    }

    /// The kept CLIPBOARD content when the journal holds it (`add(keeping:)`), read from there; nil otherwise.
    func keptArchive(skipped: inout [SkippedRepresentation]) -> ContentArchive? {
        guard let keptID, let index = entries.firstIndex(where: { $0.id == keptID }) else { return nil }
        return archive(at: index, skipped: &skipped)
    }

    /// The content of the entry at `index` (0 = newest); nil when there is no such entry, or none of its
    /// representations can be read back. Representations that cannot be kept are added to `skipped`.
    func content(at index: Int, skipped: inout [SkippedRepresentation]) -> PasteboardContent? {
        guard entries.indices.contains(index) else { return nil }
        let id = entries[index].id
        if let content = memory[id] { return content }
        if let committed = lastCommitted, committed.id == id { return committed.content }
        guard let archive = archive(at: index, skipped: &skipped), !archive.content.items.isEmpty else { return nil }
        return archive.content
    }

    /// The archive of the entry at `index`, from the journal or its file, on the way to the disk or on it; nil when
    /// it cannot be read, or is not what the entry recorded (its digest).
    private func archive(at index: Int, skipped: inout [SkippedRepresentation]) -> ContentArchive? {
        let entry = entries[index]
        if let place = inline[entry.id], let journalPath {
            let before = skipped.count
            guard let bytes = writer.bytes(of: journalPath, at: place.offset, count: place.count),
                  let archive = try? ContentArchive.decode(bytes, skipped: &skipped) else { return nil }
            // Bytes from where the frame should be but is not (a failed append) are not passed off as the entry's.
            if skipped.count == before && Self.digest(of: archive.content) != entry.digest { return nil }
            return archive
        }
        // An entry still on its way to the disk is read from the writer's queue; one on disk is opened, its
        // large representations left in the file (served from there when it is copied back).
        guard let path = archivePath(entry.id) else { return nil }
        if let bytes = writer.pendingBytes(for: path) {
            return try? ContentArchive.decode(bytes, skipped: &skipped)
        }
        return try? ContentArchive.open(path: path, contentBytes: maximumBytes, skipped: &skipped)
    }

    func delete(at index: Int) -> Bool {
        guard entries.indices.contains(index) else { return false }
        var records: [HistoryJournal.Record] = []
        let removals = remove(entries[index], into: &records)
        entries.remove(at: index)
        finish(records, removals: removals)
        return true
    }

    /// Removes every entry, on disk too (the kept clipboard's content, if the journal held it, is written to its
    /// own file first).
    func clear() {
        var records: [HistoryJournal.Record] = []
        for entry in entries { _ = remove(entry, into: &records) }
        entries = []
        guard let directory else { return }
        compact()
        writer.submit(.sweep(directory: directory, suffixes: [".archive"]))
    }

    /// Forgets `entry`: its drop (and, when it was the kept clipboard, the journal's saying so, once its content is
    /// written to `clipboard.archive`) added to `records`; returns its file, to remove once they are written.
    private func remove(_ entry: Entry, into records: inout [HistoryJournal.Record], superseded: Bool = false) -> [String] {
        memory[entry.id] = nil
        if lastCommitted?.id == entry.id { lastCommitted = nil }
        if keptID == entry.id && superseded {
            // The caller keeps newer content: a kept id naming a dropped entry says nothing.
            keptID = nil
        } else if keptID == entry.id, let keptArchivePath, let place = inline[entry.id], let journalPath {
            if let bytes = writer.bytes(of: journalPath, at: place.offset, count: place.count) {
                writer.submit(.write(path: keptArchivePath, bytes: bytes, mode: 0o600))
            }
            keptID = nil
            keptFileMayExist = true
            records.append(.kept(nil))
        } else if keptID == entry.id {
            // Kept as a file entry (only a hand-made journal says so) or unreadable: the kept id goes with it.
            keptID = nil
            records.append(.kept(nil))
        }
        records.append(.drop(entry.id))
        recordBytes[entry.id] = nil
        let wasInline = inline.removeValue(forKey: entry.id) != nil
        guard !wasInline, let path = archivePath(entry.id) else { return [] }
        return [path]
    }

    /// Drops the entries larger than the whole budget (they can never fit: a limit was lowered), then the
    /// oldest until the limits hold, their records added to `records`; returns the files to remove. With
    /// `superseded`, the kept clipboard is being set anew: an entry that held it leaves without its content being
    /// written out.
    private func trim(into records: inout [HistoryJournal.Record], superseded: Bool = false) -> [String] {
        var removals: [String] = []
        for entry in entries where Int(clamping: entry.size) > maximumBytes { removals += remove(entry, into: &records, superseded: superseded) }
        entries.removeAll { Int(clamping: $0.size) > maximumBytes }
        // The newest that fit, counted from the front so the total never passes the budget (whatever a journal's
        // sizes add up to); the rest leave oldest first.
        var total = 0, kept = 0
        while kept < min(entries.count, maximumEntries) {
            let size = Int(clamping: entries[kept].size)
            guard size <= maximumBytes - total else { break }
            total += size
            kept += 1
        }
        while entries.count > kept {
            removals += remove(entries.removeLast(), into: &records, superseded: superseded)
        }
        return removals
    }

    /// The limits applied to what the history holds now (at start, and when the configuration lowers them).
    private func enforceLimits() {
        var records: [HistoryJournal.Record] = []
        let removals = trim(into: &records)
        finish(records, removals: removals)
    }

    // MARK: - The journal

    /// About what `entry`'s record takes in the journal.
    private static func estimatedRecordBytes(_ entry: Entry, archive: Int) -> Int {
        64 + entry.pasteboard.rawValue.utf8.count + entry.preview.utf8.count + entry.types.reduce(0) { $0 + 4 + $1.utf8.count }
            + (entry.source?.application.utf8.count ?? 0) + archive
    }

    /// Appends one frame of `records` (unless there are none), then removes `removals`; writes the journal whole
    /// instead when its last write failed, and after the frame when it holds more than twice what is live.
    private func finish(_ records: [HistoryJournal.Record], removals: [String] = []) {
        guard let journalPath else { return }
        if writer.isBroken(journalPath) {
            // What the last frames said is in memory; the file is written again from it.
            var fresh: [UInt64: [UInt8]] = [:]
            for case .entry(let entry, let archive?) in records where recordBytes[entry.id] != nil {
                fresh[entry.id] = archive
                inline[entry.id] = (0, archive.count)   // placed by the whole write
            }
            compact(fresh: fresh)
        } else if !records.isEmpty {
            let (bytes, archives) = HistoryJournal.frame(records, at: journalLength)
            writer.submit(.append(path: journalPath, offset: journalLength, bytes: bytes))
            // (An entry dropped in the same frame, as soon as added, has no place.)
            for archive in archives where recordBytes[archive.id] != nil { inline[archive.id] = (journalLength + archive.offset, archive.count) }
            journalLength += bytes.count
            if compactionDue { compact() }
        }
        for path in removals { writer.submit(.remove(path: path)) }
    }

    /// True when the journal holds more than twice what is live, and 64 KiB besides: time to write it whole.
    private var compactionDue: Bool { journalLength > 2 * recordBytes.values.reduce(0, +) + (64 << 10) }

    /// Writes the journal whole (atomically): every entry, oldest first, and what is kept. A small entry whose
    /// archive cannot be read back (from `fresh`, the writer's queue or the file) is dropped.
    private func compact(fresh: [UInt64: [UInt8]] = [:]) {
        guard let journalPath else { return }
        var records: [HistoryJournal.Record] = [.next(nextID)]
        var lost: Set<UInt64> = []
        for entry in entries.reversed() {
            guard let place = inline[entry.id] else {
                records.append(.entry(entry, archive: nil))
                continue
            }
            guard let bytes = fresh[entry.id] ?? writer.bytes(of: journalPath, at: place.offset, count: place.count) else {
                lost.insert(entry.id)
                continue
            }
            records.append(.entry(entry, archive: bytes))
        }
        if !lost.isEmpty {
            entries.removeAll { lost.contains($0.id) }
            for id in lost { inline[id] = nil; recordBytes[id] = nil }
            if let keptID, lost.contains(keptID) { self.keptID = nil }
        }
        if let keptID { records.append(.kept(keptID)) }
        let (bytes, archives) = HistoryJournal.frame(records, at: 0)
        writer.submit(.write(path: journalPath, bytes: bytes, mode: 0o600))
        inline = [:]
        for archive in archives { inline[archive.id] = (archive.offset, archive.count) }
        journalLength = bytes.count
    }

    /// A type name as an older version's index held it, its `%XX` escapes (each byte that would have ended its field
    /// or line: controls, space, `%`) undone; a `%` not followed by two hex digits is itself.
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
        guard let directory, let journalPath else { return }
        try? FileSystem.createDirectory(directory, mode: 0o700, intermediate: true)
        var rewrite = false
        // The small entries' archives as read, for a whole write at start to take rather than read them again.
        var read: [UInt64: [UInt8]] = [:]
        if let bytes = try? FileSystem.readFile(journalPath, limit: HistoryJournal.maximumPayload) {
            let contents = HistoryJournal.read(bytes)
            replay(contents)
            for case .entry(let entry, let archive?) in contents.records { read[entry.id] = archive }
            journalLength = bytes.count
            // A torn or unwritten frame is left behind by the next whole write, and an older version's frames are
            // written again as this one's.
            rewrite = contents.damagedBytes > 0 || contents.legacyFrames > 0
        } else if FileSystem.fileExists(journalPath) {
            // Unreadable: written anew (appending to what cannot be read would only add to it).
            rewrite = true
        } else if let bytes = try? FileSystem.readFile(legacyIndexPath!, limit: 16 << 20) {
            loadLegacyIndex(bytes)
            rewrite = true
        }
        if let keptArchivePath { keptFileMayExist = FileSystem.fileExists(keptArchivePath) }
        // An entry whose file is gone (a crash before its write, a user's hand) is dropped.
        entries.removeAll { entry in
            inline[entry.id] == nil && !FileSystem.fileExists(archivePath(entry.id)!)
        }
        if let keptID, !entries.contains(where: { $0.id == keptID }) { self.keptID = nil }
        let known = Set(entries.map(\.id))
        for id in recordBytes.keys where !known.contains(id) { recordBytes[id] = nil; inline[id] = nil }
        // Archives a crash left without a frame naming them are removed.
        for name in (try? FileSystem.listDirectory(directory)) ?? [] where name.hasSuffix(".archive") {
            if let id = UInt64(name.dropLast(".archive".count)), !known.contains(id) || inline[id] != nil {
                try? FileSystem.removeFile(directory + "/" + name, ignoreMissing: true)
            }
        }
        let renumbered = renumberHighIDs(fresh: &read)
        if renumbered != nil { rewrite = true }
        // Limits lowered since the last run hold from the start.
        var records: [HistoryJournal.Record] = []
        let removals = trim(into: &records) + (renumbered ?? [])
        // An older version's index goes once the journal says what it said (or more: an upgrade cut short).
        let legacyIndex = legacyIndexPath.flatMap { FileSystem.fileExists($0) ? $0 : nil }
        if rewrite || !records.isEmpty || legacyIndex != nil || compactionDue {
            compact(fresh: read)
            for path in removals { writer.submit(.remove(path: path)) }
        }
        if let legacyIndex { writer.submit(.remove(path: legacyIndex)) }
    }

    /// Entries whose ids are in the top half of their range (no daemon gets there: a hand-made journal) are given
    /// ids after the others', in their order, so that the next copies' ids stay within what a restart reads back
    /// (`HistoryJournal.maximumID`). An entry with a file has it linked under its new name now — a crash before the
    /// journal names it leaves that name unnamed, removed at the next start — and the old names are returned, to go
    /// once the journal is written; one whose file cannot be linked keeps its id, tried again at the next start.
    /// Returns nil, and changes nothing, when the ids are a daemon's.
    private func renumberHighIDs(fresh: inout [UInt64: [UInt8]]) -> [String]? {
        let high = HistoryJournal.maximumID / 2
        guard nextID > high else { return nil }
        var next = (entries.map(\.id).filter { $0 <= high }.max() ?? 0) + 1
        var oldNames: [String] = []
        for index in entries.indices.reversed() where entries[index].id > high {
            let old = entries[index].id, new = next
            if inline[old] == nil, let from = archivePath(old), let to = archivePath(new) {
                guard (try? AtomicFile.link(from, to: to)) != nil else { continue }
                oldNames.append(from)
            }
            next += 1
            entries[index].id = new
            inline[new] = inline.removeValue(forKey: old)
            recordBytes[new] = recordBytes.removeValue(forKey: old)
            fresh[new] = fresh.removeValue(forKey: old)
            if keptID == old { keptID = new }
        }
        nextID = next
        return oldNames
    }

    /// The entries a journal's records leave, in their order (each record looked up by id: a journal written whole
    /// lists every entry in one frame, up to `historyLength`'s 100,000).
    private func replay(_ contents: HistoryJournal.Contents) {
        var live: [UInt64: (entry: HistoryStore.Entry, position: Int)] = [:]
        var position = 0
        for record in contents.records {
            switch record {
            case .next(let id):
                nextID = max(nextID, id)
            case .entry(let entry, let archive):
                live[entry.id] = (entry, position)
                position += 1
                inline[entry.id] = archive == nil ? nil : contents.archives[entry.id].map { ($0.offset, $0.count) }
                recordBytes[entry.id] = Self.estimatedRecordBytes(entry, archive: archive?.count ?? 0)
                nextID = max(nextID, entry.id + 1)
            case .drop(let id):
                live[id] = nil
                inline[id] = nil
                recordBytes[id] = nil
                nextID = max(nextID, id + 1)
            case .kept(let id):
                keptID = id
                // An id named is used, its entry there or not (its frame damaged): a new copy never takes it, and
                // so is never taken for the kept one after a restart.
                if let id { nextID = max(nextID, id + 1) }
            }
        }
        // Newest first: the later an entry was added, the nearer the front.
        entries = live.values.sorted { $0.position > $1.position }.map(\.entry)
    }

    /// An older version's history: an `index` file, one entry per line, fields separated by tabs, preview last;
    /// each entry's content in its own file.
    private func loadLegacyIndex(_ bytes: [UInt8]) {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true)
        for line in lines {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            // Ids past the journal's highest are not an older daemon's either (and would overflow the next id).
            if f.count == 2, f[0] == "next", let n = UInt64(f[1]) {
                if n <= HistoryJournal.maximumID + 1 { nextID = max(nextID, n) }
                continue
            }
            guard f.count == 7 || f.count == 9, let id = UInt64(f[0]), id >= 1 && id <= HistoryJournal.maximumID,
                  let time = Int64(f[1]), let name = PasteboardName.named(f[2]),
                  let size = UInt64(f[3]), let digest = UInt64(f[4]) else { continue }
            let entry = Entry(id: id, time: time, pasteboard: name, types: f[5].split(separator: " ").map { Self.unescaped(String($0)) },
                              size: size, preview: f[6], digest: digest,
                              source: f.count == 9 ? ContentSource(application: Self.unescaped(f[7]), processID: Int32(f[8])) : nil)
            entries.append(entry)
            recordBytes[id] = Self.estimatedRecordBytes(entry, archive: 0)
            nextID = max(nextID, id + 1)
        }
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
