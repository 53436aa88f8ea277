// SPDX-License-Identifier: Apache-2.0
import Pasteboard
import SystemSupport
import XTypes

/// A regular file `pb copy` sends from where it is: the representation's bytes stay in the file
/// (`Representation(type:source:)`) and are read a chunk at a time as the copy is written to pasteboardd
/// (`ControlRequest.encodePieces`), so pb's memory stays small whatever the file's size. The protocol needs the
/// length first: it is the file's size when opened, and a file that changes while it is sent (its size or its
/// modification time moves, or it ends early) fails the read with `Changed`, before the last of its bytes are
/// sent, so the daemon, which keeps only whole requests, keeps nothing of it.
final class CopiedFile: ByteSource {
    let descriptor: FileDescriptor
    /// How the file is named in messages.
    let name: String
    /// Where the bytes sent begin in the file, and how many there are.
    let start: Int
    let count: Int
    /// The file as it was when opened.
    private let opened: FileStatus
    /// Whether the descriptor is closed with this value (not standard input).
    private let owned: Bool

    /// Representations of at least this many bytes read from a regular file are sent from it; smaller ones are
    /// read at once (one chunk of the write).
    static let streamedFrom = 256 << 10

    /// Opens `path` for sending from it: nil when it is not a regular file of at least `streamedFrom` bytes (read
    /// it whole instead). Throws the open's error, or `SystemError.limitExceeded` past `limit` bytes.
    static func open(_ path: String, limit: Int) throws -> CopiedFile? {
        let descriptor = try FileDescriptor.open(path, .readOnly)
        do {
            let status = try descriptor.status()
            guard status.kind == .regular, status.size >= streamedFrom else {
                try? descriptor.close()
                return nil
            }
            guard status.size <= limit else { throw SystemError.limitExceeded(operation: "read(\(path))", limit: limit) }
            return CopiedFile(descriptor, name: path, start: 0, count: Int(status.size), opened: status, owned: true)
        } catch {
            try? descriptor.close()
            throw error
        }
    }

    /// Standard input, when it is a regular file (`pb copy < big.bin`) of at least `streamedFrom` bytes from its
    /// current offset to its end; nil otherwise (a pipe, a terminal: it is read whole). With `trimmingNewline`,
    /// one trailing newline (LF or CRLF) is left out, as `-n` asks.
    static func standardInput(limit: Int, trimmingNewline: Bool) throws -> CopiedFile? {
        let descriptor = FileDescriptor.standardInput
        guard let status = try? descriptor.status(), status.kind == .regular, let offset = try? descriptor.offset(),
              Int(status.size) - offset >= streamedFrom else { return nil }
        var count = Int(status.size) - offset
        guard count <= limit + (trimmingNewline ? 2 : 0) else {
            throw SystemError.limitExceeded(operation: "read(standard input)", limit: limit)
        }
        if trimmingNewline {
            let tail = try descriptor.read(count: 2, at: offset + count - 2)
            count -= tail == [0x0D, 0x0A] ? 2 : tail.last == 0x0A ? 1 : 0
            guard count <= limit else { throw SystemError.limitExceeded(operation: "read(standard input)", limit: limit) }
        }
        return CopiedFile(descriptor, name: "standard input", start: offset, count: count, opened: status, owned: false)
    }

    private init(_ descriptor: FileDescriptor, name: String, start: Int, count: Int, opened: FileStatus, owned: Bool) {
        self.descriptor = descriptor
        self.name = name
        self.start = start
        self.count = count
        self.opened = opened
        self.owned = owned
    }

    deinit { if owned { try? descriptor.close() } }

    /// The bytes of `range`, read with `pread`; throws `Changed` when the file is no longer as it was opened.
    func read(_ range: Range<Int>) throws -> [UInt8] {
        try checkUnchanged()
        let bytes: [UInt8]
        do { bytes = try descriptor.read(count: range.count, at: start + range.lowerBound) } catch SystemError.unexpectedEndOfFile {
            throw Changed(name: name, sizeWhenOpened: opened.size, sizeNow: (try? descriptor.status().size) ?? -1)
        }
        // Checked again after the read: a file rewritten meanwhile gave bytes of another version.
        try checkUnchanged()
        return bytes
    }

    private func checkUnchanged() throws {
        let now = try descriptor.status()
        guard now.size == opened.size, now.modifiedSeconds == opened.modifiedSeconds,
              now.modifiedNanoseconds == opened.modifiedNanoseconds else {
            throw Changed(name: name, sizeWhenOpened: opened.size, sizeNow: now.size)
        }
    }

    /// The file changed while it was being sent.
    struct Changed: Error, CustomStringConvertible {
        let name: String
        let sizeWhenOpened: Int64
        let sizeNow: Int64

        var description: String {
            let sizes = sizeNow == sizeWhenOpened ? "it was modified" : "\(sizeWhenOpened) bytes when it was opened, \(sizeNow) now"
            return "\(Runner.shown(name)) changed while it was being copied (\(sizes)): nothing was copied"
        }
    }
}
