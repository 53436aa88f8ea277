// SPDX-License-Identifier: Apache-2.0
import Glibc
import CSystemShims

/// An open file descriptor: a raw `Int32` with typed operations.
///
/// A `FileDescriptor` is a plain value; it does not close itself. Whoever opens one owns it and
/// closes it exactly once. Every descriptor this module creates has `O_CLOEXEC` set.
public struct FileDescriptor: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let standardInput = FileDescriptor(rawValue: 0)
    public static let standardOutput = FileDescriptor(rawValue: 1)
    public static let standardError = FileDescriptor(rawValue: 2)

    public var description: String { "fd \(rawValue)" }
}

// MARK: - Options

extension FileDescriptor {
    /// Flags for `open(2)`. `O_CLOEXEC` is always added by `open`.
    public struct OpenFlags: OptionSet, Hashable, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let readOnly = OpenFlags([])
        public static let writeOnly = OpenFlags(rawValue: O_WRONLY)
        public static let readWrite = OpenFlags(rawValue: O_RDWR)
        public static let create = OpenFlags(rawValue: O_CREAT)
        public static let exclusiveCreate = OpenFlags(rawValue: O_EXCL)
        public static let truncate = OpenFlags(rawValue: O_TRUNC)
        public static let append = OpenFlags(rawValue: O_APPEND)
        public static let nonBlocking = OpenFlags(rawValue: O_NONBLOCK)
        public static let directory = OpenFlags(rawValue: O_DIRECTORY)
        public static let noFollow = OpenFlags(rawValue: O_NOFOLLOW)
    }

    /// The outcome of a non-blocking read.
    public enum ReadResult: Hashable, Sendable {
        /// Between 1 and `max` bytes.
        case data([UInt8])
        /// Nothing to read now (`EAGAIN`); wait for `.readable`.
        case wouldBlock
        /// The peer closed its end.
        case endOfFile
    }
}

/// Permission bits for files and directories, e.g. `0o600`.
public struct FilePermissions: RawRepresentable, Hashable, Sendable, ExpressibleByIntegerLiteral, CustomStringConvertible {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(integerLiteral value: UInt32) { self.rawValue = value }

    /// `0o600`: read and write for the owner only.
    public static let ownerReadWrite: FilePermissions = 0o600
    /// `0o700`: everything for the owner only.
    public static let ownerAll: FilePermissions = 0o700

    public var description: String { "0" + String(rawValue, radix: 8) }
}

// MARK: - Opening and closing

extension FileDescriptor {
    /// Opens `path` with `flags` plus `O_CLOEXEC`; `mode` is used when `.create` is given.
    ///
    /// The corresponding C function is `open(2)`.
    public static func open(_ path: String, _ flags: OpenFlags, mode: FilePermissions = 0o600) throws -> FileDescriptor {
        let raw = try retryingInterrupts("open(\(path))") {
            Glibc.open(path, flags.rawValue | O_CLOEXEC, mode.rawValue)
        }
        return FileDescriptor(rawValue: raw)
    }

    /// Closes the descriptor. It is not retried on `EINTR`: on Linux the descriptor is gone either way.
    ///
    /// The corresponding C function is `close(2)`.
    public func close() throws {
        _ = try valueOrErrno("close(\(rawValue))") { Glibc.close(rawValue) }
    }

    /// Creates a pipe; both ends have `O_CLOEXEC`, and `O_NONBLOCK` too when `nonBlocking` is true.
    ///
    /// The corresponding C function is `pipe2(2)`.
    public static func pipe(nonBlocking: Bool = false) throws -> (readEnd: FileDescriptor, writeEnd: FileDescriptor) {
        var fds: [Int32] = [-1, -1]
        let flags = O_CLOEXEC | (nonBlocking ? O_NONBLOCK : 0)
        _ = try valueOrErrno("pipe2") { GNUExtensions.pipe2(&fds, flags) }
        return (FileDescriptor(rawValue: fds[0]), FileDescriptor(rawValue: fds[1]))
    }

    /// Duplicates this descriptor onto `target` (closing what `target` was), or onto the lowest free
    /// number when `target` is nil. The new descriptor has `O_CLOEXEC`, except that duplicating onto
    /// standard input, output or error leaves it inheritable, as a child's stdio must be.
    ///
    /// The corresponding C functions are `fcntl(2)` with `F_DUPFD_CLOEXEC` and `dup3(2)`/`dup2(2)`.
    @discardableResult
    public func duplicate(as target: FileDescriptor? = nil) throws -> FileDescriptor {
        guard let target else {
            let raw = try valueOrErrno("fcntl(\(rawValue), F_DUPFD_CLOEXEC)") { fcntl(rawValue, F_DUPFD_CLOEXEC, 0) }
            return FileDescriptor(rawValue: raw)
        }
        let raw = try retryingInterrupts("dup2(\(rawValue), \(target.rawValue))") { dup2(rawValue, target.rawValue) }
        if target.rawValue > 2 && target != self {
            try setCloseOnExec(FileDescriptor(rawValue: raw))
        }
        return FileDescriptor(rawValue: raw)
    }

    private func setCloseOnExec(_ fd: FileDescriptor) throws {
        let flags = try valueOrErrno("fcntl(\(fd.rawValue), F_GETFD)") { fcntl(fd.rawValue, F_GETFD) }
        _ = try valueOrErrno("fcntl(\(fd.rawValue), F_SETFD)") { fcntl(fd.rawValue, F_SETFD, flags | FD_CLOEXEC) }
    }
}

// MARK: - Reading

extension FileDescriptor {
    /// Reads up to `buffer.count` bytes, retrying `EINTR`. Returns 0 at end of file.
    /// On a non-blocking descriptor with nothing to read it throws `Errno.Code.wouldBlock`.
    ///
    /// The corresponding C function is `read(2)`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try retryingInterrupts("read(\(rawValue))") { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// Reads up to `buffer.count` bytes at `offset` in the file, without moving the file offset, retrying
    /// `EINTR`. Returns 0 at end of file.
    ///
    /// The corresponding C function is `pread(2)`.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws -> Int {
        try retryingInterrupts("pread(\(rawValue))") { Glibc.pread(rawValue, buffer.baseAddress, buffer.count, off_t(offset)) }
    }

    /// Exactly `count` bytes at `offset` (a file does not change under a reader that uses this); throws
    /// `SystemError.unexpectedEndOfFile` when the file ends first.
    public func read(count: Int, at offset: Int) throws -> [UInt8] {
        var done = 0
        let bytes = try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            defer { initialized = done }
            done = try fill(UnsafeMutableRawBufferPointer(buffer), at: offset)
        }
        guard done == count else {
            throw SystemError.unexpectedEndOfFile(operation: "pread(\(rawValue))", expected: count, got: done)
        }
        return bytes
    }

    /// Fills `buffer` with the bytes at `offset` (a file does not change under a reader that uses this), into
    /// memory the caller reuses; throws `SystemError.unexpectedEndOfFile` when the file ends first.
    public func read(filling buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws {
        let done = try fill(buffer, at: offset)
        guard done == buffer.count else {
            throw SystemError.unexpectedEndOfFile(operation: "pread(\(rawValue))", expected: buffer.count, got: done)
        }
    }

    /// Reads at `offset` until `buffer` is full or the file ends; how many bytes came.
    private func fill(_ buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws -> Int {
        var done = 0
        while done < buffer.count {
            let got = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]), at: offset + done)
            if got == 0 { break }
            done += got
        }
        return done
    }

    /// Reads what is available now, at most `max` bytes, from a non-blocking descriptor, into an array the size of
    /// what the descriptor says is there (FIONREAD; `max` when it cannot tell): a reader that allows 1 MiB per read
    /// holds, and maps, no 1 MiB for the few bytes a read brings.
    ///
    /// The corresponding C functions are `ioctl(2)` (FIONREAD) and `read(2)`.
    public func readAvailable(max: Int = 65536) throws -> ReadResult {
        precondition(max > 0, "readAvailable(max:) needs room for at least one byte")
        // Nothing there (0) is room for one byte: the read then says end of file, or that it would block.
        let readable = Int(pbs_bytes_readable(rawValue))
        let room = readable < 0 ? max : Swift.min(max, Swift.max(readable, 1))
        var count = 0
        var readError: (any Error)?
        let bytes = [UInt8](unsafeUninitializedCapacity: room) { buffer, initialized in
            do {
                count = try read(into: UnsafeMutableRawBufferPointer(buffer))
            } catch {
                readError = error
            }
            initialized = count
        }
        if let readError {
            if case Errno.Code.wouldBlock = readError { return .wouldBlock }
            throw readError
        }
        return count == 0 ? .endOfFile : .data(bytes)
    }

    /// Reads until end of file on a blocking descriptor. Throws `SystemError.limitExceeded` as soon
    /// as more than `limit` bytes arrive, without reading the rest.
    ///
    /// The corresponding C function is `read(2)`.
    public func readToEnd(limit: Int) throws -> [UInt8] {
        var result: [UInt8] = []
        // One byte past the limit is enough to know it is over (a 1 KiB `/proc/PID/comm` read zeroes no 64 KiB).
        var chunk = [UInt8](repeating: 0, count: limit < 65536 ? limit + 1 : 65536)
        while true {
            let count = try chunk.withUnsafeMutableBytes { buffer in try read(into: buffer) }
            if count == 0 { return result }
            if result.count + count > limit {
                throw SystemError.limitExceeded(operation: "read(\(rawValue))", limit: limit)
            }
            result.append(contentsOf: chunk[0..<count])
        }
    }
}

// MARK: - Writing

extension FileDescriptor {
    /// Writes some of `buffer`, retrying `EINTR`; returns the number of bytes written.
    ///
    /// The corresponding C function is `write(2)`.
    public func write(_ buffer: UnsafeRawBufferPointer) throws -> Int {
        try retryingInterrupts("write(\(rawValue))") { Glibc.write(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// Writes some of `bytes`, retrying `EINTR`; returns the number of bytes written.
    ///
    /// The corresponding C function is `write(2)`.
    public func write(_ bytes: [UInt8]) throws -> Int {
        try bytes.withUnsafeBytes { buffer in try write(buffer) }
    }

    /// Writes all of `bytes` to a blocking descriptor, continuing after partial writes, at most
    /// `largestWrite` bytes per call.
    ///
    /// The corresponding C function is `write(2)`.
    public func writeAll<Bytes: Collection>(_ bytes: Bytes) throws where Bytes.Element == UInt8 {
        let contiguous = Array(bytes)
        try contiguous.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let end = min(offset + Self.largestWrite, buffer.count)
                offset += try write(UnsafeRawBufferPointer(rebasing: buffer[offset..<end]))
            }
        }
    }

    /// The most `writeAll` hands to one `write(2)`. A write of 2 MiB or more into a file lets the kernel give
    /// the page cache 2 MiB folios, and on a virtual machine that reports free memory to its host (free page
    /// reporting, 2 MiB blocks) every such folio is memory the host must back again: 10 MiB written at once
    /// cost 30–60 ms of CPU on the bench machine, in pieces of 1 MiB or less 4–5 ms (a C program, each size
    /// in turn, 3 s apart). Pipes and sockets take what fits anyway.
    public static let largestWrite = 1 << 20

    /// Writes all of `buffer` at `offset` in the file, without moving the file offset, retrying `EINTR` and
    /// continuing after partial writes, at most `largestWrite` bytes per call (past the end, the file grows).
    ///
    /// The corresponding C function is `pwrite(2)`.
    public func writeAll(_ buffer: UnsafeRawBufferPointer, at offset: Int) throws {
        var done = 0
        while done < buffer.count {
            let end = min(done + Self.largestWrite, buffer.count)
            let piece = UnsafeRawBufferPointer(rebasing: buffer[done..<end])
            done += try retryingInterrupts("pwrite(\(rawValue))") {
                Glibc.pwrite(rawValue, piece.baseAddress, piece.count, off_t(offset + done))
            }
        }
    }

    /// Sets the file's size to `size` bytes: what lies past it is gone, and a file shorter grows with zeros.
    ///
    /// The corresponding C function is `ftruncate(2)`.
    public func truncate(to size: Int) throws {
        _ = try retryingInterrupts("ftruncate(\(rawValue))") { ftruncate(rawValue, off_t(size)) }
    }

    /// Writes what fits now to a non-blocking descriptor: the number of bytes written, 0 on `EAGAIN`.
    ///
    /// The corresponding C function is `write(2)`.
    public func writeSome(_ buffer: UnsafeRawBufferPointer) throws -> Int {
        do {
            return try write(buffer)
        } catch Errno.Code.wouldBlock {
            return 0
        }
    }

    /// Moves up to `count` bytes of `file` at `offset` into this pipe without copying them through the process (the
    /// pipe takes references to the file's cached pages), what fits now: the number moved, 0 when the pipe is full.
    /// Throws `SystemError.unexpectedEndOfFile` when the file ends first, and `Errno.Code.invalidArgument` when the
    /// file's system cannot splice (the caller then writes the bytes). The file must not change where the bytes
    /// were until the reader has read them: a spliced page is the file's own.
    ///
    /// The corresponding C function is `splice(2)` with `SPLICE_F_NONBLOCK`.
    public func spliceSome(from file: FileDescriptor, at offset: Int, count: Int) throws -> Int {
        var position = Int64(offset)
        do {
            let moved = try retryingInterrupts("splice(\(file.rawValue) → \(rawValue))") {
                pbs_splice_to_pipe(file.rawValue, &position, rawValue, UInt(count))
            }
            if moved == 0 && count > 0 {
                throw SystemError.unexpectedEndOfFile(operation: "splice(\(file.rawValue))", expected: count, got: 0)
            }
            return moved
        } catch Errno.Code.wouldBlock {
            return 0
        }
    }

    /// Asks a pipe to hold up to `bytes` (fewer round trips of the reader for a large write); returns the
    /// capacity it has now, which may be less (the system's pipe-max-size), or nil when it is not a pipe.
    ///
    /// The corresponding C function is `fcntl(2)` with `F_SETPIPE_SZ`, then `F_GETPIPE_SZ` (Linux: 1031 and
    /// 1032, which Glibc's module does not export).
    public func growPipe(to bytes: Int) -> Int? {
        let setPipeSize: Int32 = 1031, getPipeSize: Int32 = 1032
        _ = fcntl(rawValue, setPipeSize, Int32(clamping: bytes))
        let capacity = fcntl(rawValue, getPipeSize)
        return capacity > 0 ? Int(capacity) : nil
    }

    /// Writes what fits now of `bytes[offset...]` to a non-blocking descriptor; 0 on `EAGAIN`.
    ///
    /// The corresponding C function is `write(2)`.
    public func writeSome(_ bytes: [UInt8], from offset: Int = 0) throws -> Int {
        precondition(offset >= 0 && offset <= bytes.count, "writeSome offset out of range")
        return try bytes.withUnsafeBytes { buffer in
            try writeSome(UnsafeRawBufferPointer(rebasing: buffer[offset...]))
        }
    }
}

// MARK: - Properties

extension FileDescriptor {
    /// Sets or clears `O_NONBLOCK`.
    ///
    /// The corresponding C function is `fcntl(2)` with `F_GETFL`/`F_SETFL`.
    public func setNonBlocking(_ nonBlocking: Bool = true) throws {
        let flags = try valueOrErrno("fcntl(\(rawValue), F_GETFL)") { fcntl(rawValue, F_GETFL) }
        let wanted = nonBlocking ? flags | O_NONBLOCK : flags & ~O_NONBLOCK
        if wanted != flags {
            _ = try valueOrErrno("fcntl(\(rawValue), F_SETFL)") { fcntl(rawValue, F_SETFL, wanted) }
        }
    }

    /// Whether `O_CLOEXEC` is set.
    ///
    /// The corresponding C function is `fcntl(2)` with `F_GETFD`.
    public var isCloseOnExec: Bool {
        get throws {
            let flags = try valueOrErrno("fcntl(\(rawValue), F_GETFD)") { fcntl(rawValue, F_GETFD) }
            return flags & FD_CLOEXEC != 0
        }
    }

    /// Whether `O_NONBLOCK` is set.
    ///
    /// The corresponding C function is `fcntl(2)` with `F_GETFL`.
    public var isNonBlocking: Bool {
        get throws {
            let flags = try valueOrErrno("fcntl(\(rawValue), F_GETFL)") { fcntl(rawValue, F_GETFL) }
            return flags & O_NONBLOCK != 0
        }
    }

    /// Whether the descriptor is a terminal.
    ///
    /// The corresponding C function is `isatty(3)`.
    public var isTerminal: Bool { isatty(rawValue) == 1 }

    /// Flushes the file's data and metadata to the device.
    ///
    /// The corresponding C function is `fsync(2)`.
    public func sync() throws {
        _ = try retryingInterrupts("fsync(\(rawValue))") { fsync(rawValue) }
    }

    /// Flushes the file's data, and the metadata needed to read it back (its size), to the device: what an
    /// append needs, without the timestamps `sync` writes too.
    ///
    /// The corresponding C function is `fdatasync(2)`.
    public func syncData() throws {
        _ = try retryingInterrupts("fdatasync(\(rawValue))") { fdatasync(rawValue) }
    }

    /// Where the next `read` starts in the open file (its offset), in bytes.
    ///
    /// The corresponding C function is `lseek(2)` with `SEEK_CUR`.
    public func offset() throws -> Int {
        Int(try valueOrErrno("lseek(\(rawValue))") { lseek(rawValue, 0, SEEK_CUR) })
    }

    /// Device and inode, mode, owner and size of the open file.
    ///
    /// The corresponding C function is `fstat(2)`.
    public func status() throws -> FileStatus {
        var info = stat()
        _ = try valueOrErrno("fstat(\(rawValue))") { fstat(rawValue, &info) }
        return FileStatus(info)
    }
}
