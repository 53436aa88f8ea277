// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import SystemSupport
import XTypes

/// A copy's archive (`ContentArchive`'s layout) written while the copy is read: each large representation goes
/// from its pipe straight to where the archive holds its bytes, digested on the way (`ContentDigest`), so the
/// bytes are never all in memory — the kept copy is served from this file (`ArchiveFileBytes`) and the history
/// entry is this file, committed under its name by the writer thread (`commit`): its framing (header, types,
/// lengths, the small representations) patched in, fsynced, renamed. What a Wayland seat reads early does this
/// once a representation passes `threshold`, when the history is on disk.
///
/// Laid out as the archive will be: the bytes of a representation streamed after those kept before it start where
/// the archive's encoding of those (and of its own type and length) ends. Nothing but the streamed bytes is
/// written on the loop; the rest comes with the commit. The layout is checked when the file is committed
/// (`commit`): content that does not lie where its archive would put it is not committed (written as any other).
///
/// Contract: one owner, the loop's thread. The file is a temporary one in the history's directory
/// (`.incoming.tmp-PID-N`: a killed daemon's is removed at the next start); it is removed when the last reference
/// goes unless it was committed — a read cut short, a copy changed meanwhile or not kept leaves no file, while
/// what was read from it stays readable through its open descriptor for as long as it is held.
final class IncomingArchive {
    /// A representation reaching this many bytes goes to the file from then on (smaller ones stay in memory, and
    /// are written with the framing): what fills the first chunk of a read (`ChunkedBytes.firstChunkBytes`, from the
    /// heap), so that no larger block — a 2 MiB huge page, zeroed — is ever taken for a copy that goes to a file. (At
    /// 1 MiB, that page's zeroing was 15 % of the daemon's samples for a 10 MiB copy.) A file is no extra cost: the
    /// history writes one for every copy it keeps.
    static let threshold = ChunkedBytes.firstChunkBytes

    let pasteboard: PasteboardName
    let temporaryPath: String
    /// The file as readers see it: what streamed representations are read through.
    let reader: OpenFile
    private var writer: FileDescriptor?
    /// Every representation before `digested` in the copy's order, and the stream's bytes so far.
    private var digest = ContentDigest()
    private var digested = 0
    private var committed = false
    /// The representation being streamed: its type, where its bytes start, how many came, the digest before it.
    private var stream: (type: PasteboardType, start: Int, count: Int, before: ContentDigest)?
    /// What each read from a pipe goes through on its way to the file: one for the loop's thread, reused by every
    /// read (a read uses it only within one call), its pages given back whenever a stream ends (`endStream`,
    /// `abandonStream`): a read of a 1 MiB pipe fills all of it, which then stayed for the daemon's life (0.19 MiB
    /// of anonymous memory after a first large copy, measured), and faulting it in again costs a few dozen page faults
    /// against the milliseconds of a copy this size.
    nonisolated(unsafe) private static let buffer: UnsafeMutableRawBufferPointer = .allocate(byteCount: 256 << 10, alignment: 4096)
    /// True once a read went through `buffer` since its pages were last given back: a stream of an X owner's
    /// chunks (appended from where the X reply is) never touches it, and costs no `madvise` at its end.
    nonisolated(unsafe) private static var bufferUsed = false

    /// Gives `buffer`'s pages back if a read used them.
    private static func releaseBuffer() {
        guard bufferUsed else { return }
        bufferUsed = false
        MemoryRelease.discardPages(of: buffer)
    }

    private init(pasteboard: PasteboardName, temporaryPath: String, writer: FileDescriptor, reader: OpenFile) {
        self.pasteboard = pasteboard
        self.temporaryPath = temporaryPath
        self.writer = writer
        self.reader = reader
    }

    /// A new, empty archive file in `directory` for a copy of `pasteboard`.
    static func create(in directory: String, pasteboard: PasteboardName) throws -> IncomingArchive {
        let (fd, path) = try AtomicFile.createTemporary(in: directory, for: "incoming")
        do {
            return IncomingArchive(pasteboard: pasteboard, temporaryPath: path, writer: fd, reader: try OpenFile(readingAt: path))
        } catch {
            try? fd.close()
            try? FileSystem.removeFile(path, ignoreMissing: true)
            throw error
        }
    }

    deinit {
        try? writer?.close()
        if !committed { try? FileSystem.removeFile(temporaryPath, ignoreMissing: true) }
    }

    /// True while a representation is being streamed.
    var isStreaming: Bool { stream != nil }

    /// The bytes of the representation being streamed so far.
    var streamedCount: Int { stream?.count ?? 0 }

    /// Starts streaming a representation of `type`, the next after `kept` (what the copy kept so far, in order).
    func begin(_ type: PasteboardType, after kept: [Representation]) {
        precondition(stream == nil, "one representation streamed at a time")
        catchUp(kept)
        let before = digest
        digest.mix(type: type)
        digest.begin()
        stream = (type, ContentArchive.dataOffset(of: type, after: kept, pasteboard: pasteboard), 0, before)
    }

    /// Appends `bytes` to the representation being streamed.
    func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard var current = stream, let writer else { preconditionFailure("append while streaming") }
        try writer.writeAll(bytes, at: current.start + current.count)
        digest.update(bytes)
        current.count += bytes.count
        stream = current
    }

    /// Reads once from `fd` (at most `limit` bytes) and appends what came, as `ChunkedBytes.read(from:limit:)` does.
    func read(from fd: FileDescriptor, limit: Int) throws -> ChunkedBytes.ReadOutcome {
        precondition(limit > 0, "room for at least one byte")
        let room = UnsafeMutableRawBufferPointer(rebasing: Self.buffer[0..<min(Self.buffer.count, limit)])
        Self.bufferUsed = true
        let got: Int
        do { got = try fd.read(into: room) } catch Errno.Code.wouldBlock { return .wouldBlock }
        if got == 0 { return .endOfFile }
        try append(UnsafeRawBufferPointer(rebasing: room[0..<got]))
        return .read(got)
    }

    /// Calls `body` with bytes `range` of the representation being streamed (within `0..<streamedCount`), read back
    /// from the file (valid during the call): for a reader elsewhere that is sent them while they arrive.
    func withStreamed(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> Void) throws {
        guard let current = stream else { preconditionFailure("withStreamed while streaming") }
        precondition(range.lowerBound >= 0 && range.upperBound <= current.count, "bytes streamed so far")
        try ArchiveFileBytes(file: reader, offset: current.start, count: current.count).withBytes(range, body)
    }

    /// The streamed representation is whole: it is now the one after those it was begun after, read from the file.
    func endStream() -> Representation {
        guard let current = stream else { preconditionFailure("endStream while streaming") }
        stream = nil
        Self.releaseBuffer()
        digest.end()
        digested += 1
        return Representation(type: current.type, source: ArchiveFileBytes(file: reader, offset: current.start, count: current.count))
    }

    /// The streamed representation is not kept: its bytes in the file are left to be cut off or written over.
    func abandonStream() {
        guard let current = stream else { return }
        stream = nil
        digest = current.before
        Self.releaseBuffer()
    }

    /// True when some representation of `representations` lies in this file.
    func holds(any representations: [Representation]) -> Bool {
        representations.contains { ($0.source as? ArchiveFileBytes)?.file === reader }
    }

    /// The de-duplication digest of content whose one item's representations are `representations` (the copy's
    /// order, those streamed here among them): `HistoryStore.digest(of:)`'s value, the streamed bytes not read again.
    func digest(of representations: [Representation]) -> UInt64 {
        precondition(stream == nil, "a digest once every stream has ended")
        catchUp(representations)
        return digest.value
    }

    private func catchUp(_ representations: [Representation]) {
        precondition(digested <= representations.count, "the representations digested come first")
        for representation in representations[digested...] { digest.mix(representation) }
        digested = representations.count
    }

    /// Stops writing on the loop: what is left is the commit's (`commit`).
    func closeWriter() {
        try? writer?.close()
        writer = nil
    }

    /// The change that names this file `path` as `archive` (whose streamed representations must be this file's, where
    /// its encoding puts them): its framing and small representations patched in, its size set, fsynced, renamed. Nil
    /// when the archive does not fit the file, or the file was committed already (once only); after a commit the file
    /// is the writer's, never removed here.
    func commit(as path: String, _ archive: ContentArchive) -> BackgroundWriter.Change? {
        guard !committed, stream == nil, let (length, patches) = archive.patches(into: reader) else { return nil }
        closeWriter()
        committed = true
        return .commit(temporary: temporaryPath, length: length, patches: patches, path: path)
    }
}
