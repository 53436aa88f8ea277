// SPDX-License-Identifier: Apache-2.0
import Glibc

/// What `stat(2)` says about a file: enough to check ownership and permissions.
public struct FileStatus: Hashable, Sendable {
    public enum Kind: Hashable, Sendable { case regular, directory, symbolicLink, socket, fifo, characterDevice, blockDevice, unknown }

    public var device: UInt64
    public var inode: UInt64
    public var kind: Kind
    /// The permission bits (`st_mode & 0o7777`).
    public var permissions: FilePermissions
    public var ownerID: UInt32
    public var groupID: UInt32
    public var size: Int64
    /// The last modification (`st_mtim`), in whole seconds since 1970; a socket's is when it was bound.
    public var modifiedSeconds: Int64
    /// The nanoseconds past `modifiedSeconds` of the last modification (`st_mtim.tv_nsec`).
    public var modifiedNanoseconds: Int64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symbolicLink
        case S_IFSOCK: kind = .socket
        case S_IFIFO: kind = .fifo
        case S_IFCHR: kind = .characterDevice
        case S_IFBLK: kind = .blockDevice
        default: kind = .unknown
        }
        permissions = FilePermissions(rawValue: UInt32(info.st_mode & 0o7777))
        ownerID = UInt32(info.st_uid)
        groupID = UInt32(info.st_gid)
        size = Int64(info.st_size)
        modifiedSeconds = Int64(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int64(info.st_mtim.tv_nsec)
    }
}

/// Paths: directories, plain files, small whole-file reads. Paths are `String`s passed to C as UTF-8.
public enum FileSystem {
    /// Creates a directory with `mode` (subject to the umask, then set exactly with `chmod`).
    /// With `intermediate`, missing parents are created too (with `mode`) and an existing directory
    /// at `path` is not an error; its mode is left as it is.
    ///
    /// The corresponding C functions are `mkdir(2)` and `chmod(2)`.
    public static func createDirectory(_ path: String, mode: FilePermissions = 0o700, intermediate: Bool = false) throws {
        if intermediate {
            if let existing = try? status(path, followSymbolicLinks: true), existing.kind == .directory { return }
            let parent = parentDirectory(of: path)
            if parent != path && !parent.isEmpty {
                try createDirectory(parent, mode: mode, intermediate: true)
            }
        }
        do {
            _ = try valueOrErrno("mkdir(\(path))") { mkdir(path, mode.rawValue) }
        } catch Errno.Code.fileExists where intermediate {
            return
        }
        _ = try valueOrErrno("chmod(\(path))") { chmod(path, mode.rawValue) }
    }

    /// Removes a file (not a directory). A missing file is not an error when `ignoreMissing` is true.
    ///
    /// The corresponding C function is `unlink(2)`.
    public static func removeFile(_ path: String, ignoreMissing: Bool = false) throws {
        do {
            _ = try valueOrErrno("unlink(\(path))") { unlink(path) }
        } catch Errno.Code.noSuchFileOrDirectory where ignoreMissing {
        }
    }

    /// Removes an empty directory.
    ///
    /// The corresponding C function is `rmdir(2)`.
    public static func removeDirectory(_ path: String) throws {
        _ = try valueOrErrno("rmdir(\(path))") { rmdir(path) }
    }

    /// Whether something exists at `path` (a dangling symbolic link counts).
    ///
    /// The corresponding C function is `lstat(2)`.
    public static func fileExists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// The status of `path`, following a final symbolic link unless told not to.
    ///
    /// The corresponding C functions are `stat(2)` and `lstat(2)`.
    public static func status(_ path: String, followSymbolicLinks: Bool = true) throws -> FileStatus {
        var info = stat()
        if followSymbolicLinks {
            _ = try valueOrErrno("stat(\(path))") { stat(path, &info) }
        } else {
            _ = try valueOrErrno("lstat(\(path))") { lstat(path, &info) }
        }
        return FileStatus(info)
    }

    /// Reads a whole file, throwing `SystemError.limitExceeded` if it holds more than `limit` bytes.
    ///
    /// The corresponding C functions are `open(2)` and `read(2)`.
    public static func readFile(_ path: String, limit: Int) throws -> [UInt8] {
        let fd = try FileDescriptor.open(path, .readOnly)
        defer { try? fd.close() }
        return try fd.readToEnd(limit: limit)
    }

    /// The names in a directory, without `.` and `..`, sorted bytewise.
    ///
    /// The corresponding C functions are `opendir(3)`, `readdir(3)` and `closedir(3)`.
    public static func listDirectory(_ path: String) throws -> [String] {
        guard let directory = opendir(path) else { throw Errno.current("opendir(\(path))") }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            Glibc.errno = 0
            guard let entry = readdir(directory) else {
                if Glibc.errno != 0 { throw Errno.current("readdir(\(path))") }
                break
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Creates a symbolic link at `path` whose target is `target`.
    ///
    /// The corresponding C function is `symlink(2)`.
    public static func createSymbolicLink(at path: String, pointingTo target: String) throws {
        _ = try valueOrErrno("symlink(\(target), \(path))") { symlink(target, path) }
    }

    /// What the symbolic link at `path` points to, as stored.
    ///
    /// The corresponding C function is `readlink(2)`.
    public static func symbolicLinkTarget(_ path: String) throws -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = try valueOrErrno("readlink(\(path))") { readlink(path, &buffer, buffer.count - 1) }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The absolute path of `path` with every symbolic link, `.` and `..` resolved; it must exist.
    ///
    /// The corresponding C function is `realpath(3)`.
    public static func resolvedPath(_ path: String) throws -> String {
        guard let resolved = realpath(path, nil) else { throw Errno.current("realpath(\(path))") }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The current working directory.
    ///
    /// The corresponding C function is `getcwd(3)`.
    public static func currentDirectory() throws -> String {
        guard let directory = getcwd(nil, 0) else { throw Errno.current("getcwd") }
        defer { free(directory) }
        return String(cString: directory)
    }

    /// `path` made absolute against the current directory, with `.` and `..` components and repeated or
    /// trailing slashes removed as text (symbolic links are not followed: `a/link/..` is `a`, as
    /// `realpath -s` has it).
    public static func absolutePath(_ path: String) throws -> String {
        let full = path.hasPrefix("/") ? path : try currentDirectory() + "/" + path
        var components: [Substring] = []
        for component in full.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..": _ = components.popLast()
            default: components.append(component)
            }
        }
        return "/" + components.joined(separator: "/")
    }

    /// Renames atomically within one file system.
    ///
    /// The corresponding C function is `rename(2)`.
    public static func rename(_ source: String, to destination: String) throws {
        _ = try valueOrErrno("rename(\(source), \(destination))") { Glibc.rename(source, destination) }
    }

    /// Sets the permission bits of `path`.
    ///
    /// The corresponding C function is `chmod(2)`.
    public static func setPermissions(_ path: String, _ mode: FilePermissions) throws {
        _ = try valueOrErrno("chmod(\(path))") { chmod(path, mode.rawValue) }
    }

    /// Flushes `directory` itself to the device, so that a name made or changed in it survives a crash.
    ///
    /// The corresponding C functions are `open(2)` with `O_DIRECTORY` and `fsync(2)`.
    public static func syncDirectory(_ directory: String) throws {
        let directoryFD = try FileDescriptor.open(directory, [.readOnly, .directory])
        defer { try? directoryFD.close() }
        try directoryFD.sync()
    }

    /// The directory part of `path`: `"/a/b"` → `"/a"`, `"/a"` → `"/"`, `"b"` → `"."`.
    public static func parentDirectory(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        let parent = trimmed[..<slash]
        return parent.isEmpty ? "/" : String(parent)
    }
}

/// Adds bytes to a file that only grows (a journal), each write on the device before it returns.
public enum AppendOnlyFile {
    /// Writes `bytes` at `offset` of `path` and fdatasyncs it; creates the file (mode `mode`, and fsyncs its
    /// directory, so the new name survives a crash) when there is none. What was before `offset` is left as it
    /// is. A crash during the write can leave a part of `bytes` at the end of the file, never change what was
    /// before: its reader must tell a whole record from a torn one.
    ///
    /// The corresponding C functions are `open(2)`, `pwrite(2)` and `fdatasync(2)`.
    public static func write(_ bytes: [UInt8], to path: String, at offset: Int, mode: FilePermissions = 0o600) throws {
        let fd: FileDescriptor
        var created = false
        do {
            fd = try FileDescriptor.open(path, [.writeOnly, .noFollow])
        } catch Errno.Code.noSuchFileOrDirectory {
            fd = try FileDescriptor.open(path, [.writeOnly, .create, .exclusiveCreate, .noFollow], mode: mode)
            created = true
        }
        do {
            try bytes.withUnsafeBytes { try fd.writeAll($0, at: offset) }
            try fd.syncData()
            try fd.close()
        } catch {
            try? fd.close()
            throw error
        }
        if created { try FileSystem.syncDirectory(FileSystem.parentDirectory(of: path)) }
    }
}

/// Replaces a file's contents all at once, so that readers see the old or the new bytes, never a mix.
public enum AtomicFile {
    /// Writes `bytes` to a new temporary file in `path`'s directory (mode `mode`), fsyncs it,
    /// renames it over `path`, and fsyncs the directory. On failure the temporary file is removed
    /// and `path` is untouched.
    ///
    /// The corresponding C functions are `open(2)` with `O_EXCL`, `write(2)`, `fsync(2)` and `rename(2)`.
    public static func write<Bytes: Collection>(_ bytes: Bytes, to path: String, mode: FilePermissions = 0o600) throws where Bytes.Element == UInt8 {
        try write(segments: [Array(bytes)], to: path, mode: mode)
    }

    /// `write` of the concatenation of `segments`, without assembling it (large data goes from the arrays
    /// that hold it).
    public static func write(segments: [[UInt8]], to path: String, mode: FilePermissions = 0o600) throws {
        let directory = FileSystem.parentDirectory(of: path)
        let base = path.split(separator: "/").last.map(String.init) ?? path
        let (fd, temporaryPath) = try createTemporary(in: directory, for: base, mode: mode)
        do {
            for segment in segments { try fd.writeAll(segment) }
            try fd.sync()
            try fd.close()
        } catch {
            try? fd.close()
            try? FileSystem.removeFile(temporaryPath)
            throw error
        }
        try replace(path, with: temporaryPath, in: directory)
    }

    /// A new, empty temporary file in `directory` for a file to be named `base` there (`.BASE.tmp-PID-N`, mode
    /// exactly `mode`, opened for writing): what `write` writes into before the rename, and what a writer that
    /// fills a file over time (`commit`) starts from. A killed process's leftover is found by its name
    /// (`removeAbandonedTemporaryFiles`).
    ///
    /// The corresponding C function is `open(2)` with `O_EXCL`.
    public static func createTemporary(in directory: String, for base: String,
                                       mode: FilePermissions = 0o600) throws -> (FileDescriptor, String) {
        var attempt = 0
        while true {
            let temporaryPath = "\(directory)/.\(base).tmp-\(ProcessIdentity.processID)-\(attempt)"
            let fd: FileDescriptor
            do {
                fd = try FileDescriptor.open(temporaryPath, [.writeOnly, .create, .exclusiveCreate, .noFollow], mode: mode)
            } catch Errno.Code.fileExists where attempt < 100 {
                attempt += 1
                continue
            }
            do {
                // The umask may have narrowed `mode`; the caller asked for exactly this.
                _ = try valueOrErrno("fchmod(\(temporaryPath))") { fchmod(fd.rawValue, mode.rawValue) }
            } catch {
                try? fd.close()
                try? FileSystem.removeFile(temporaryPath)
                throw error
            }
            return (fd, temporaryPath)
        }
    }

    /// Gives a temporary file written over time (`createTemporary`) its last bytes and its name: its size set to
    /// `length`, each patch written at its offset, fsynced, renamed over `path` and the directory fsynced — the
    /// same guarantees as `write` from there on. On failure the temporary file is removed and `path` is untouched.
    ///
    /// The corresponding C functions are `ftruncate(2)`, `pwrite(2)`, `fsync(2)` and `rename(2)`.
    public static func commit(_ temporaryPath: String, length: Int, patches: [(offset: Int, bytes: [UInt8])], to path: String) throws {
        do {
            let fd = try FileDescriptor.open(temporaryPath, [.writeOnly, .noFollow])
            do {
                try fd.truncate(to: length)
                for patch in patches { try patch.bytes.withUnsafeBytes { try fd.writeAll($0, at: patch.offset) } }
                try fd.sync()
                try fd.close()
            } catch {
                try? fd.close()
                throw error
            }
        } catch {
            try? FileSystem.removeFile(temporaryPath)
            throw error
        }
        try replace(path, with: temporaryPath, in: FileSystem.parentDirectory(of: path))
    }

    /// Makes `path` name the same file as `existing` (a hard link: one copy of the bytes on disk), replacing
    /// what `path` named at once: a temporary link is renamed over it and the directory fsynced. `existing`
    /// must be whole already (written by `write`). Where links are not possible (another file system), the
    /// bytes are copied with `write` instead.
    ///
    /// The corresponding C functions are `link(2)`, `rename(2)` and `fsync(2)`.
    public static func link(_ existing: String, to path: String) throws {
        let directory = FileSystem.parentDirectory(of: path)
        let base = path.split(separator: "/").last.map(String.init) ?? path
        // Named as `write`'s temporary files are, so a killed process's leftover is found and removed.
        let temporaryPath = "\(directory)/.\(base).tmp-\(ProcessIdentity.processID)-999999"
        try? FileSystem.removeFile(temporaryPath, ignoreMissing: true)
        do {
            _ = try valueOrErrno("link(\(existing), \(temporaryPath))") { Glibc.link(existing, temporaryPath) }
        } catch Errno.Code.crossDevice {
            let bytes = try FileSystem.readFile(existing, limit: Int.max)
            try write(bytes, to: path, mode: try FileSystem.status(existing).permissions)
            return
        }
        try replace(path, with: temporaryPath, in: directory)
    }

    /// Renames `temporaryPath` over `path` (removing it if that fails) and fsyncs `directory`, so the
    /// new name survives a crash.
    private static func replace(_ path: String, with temporaryPath: String, in directory: String) throws {
        do {
            try FileSystem.rename(temporaryPath, to: path)
        } catch {
            try? FileSystem.removeFile(temporaryPath)
            throw error
        }
        try FileSystem.syncDirectory(directory)
    }

    /// Removes the temporary files that `write` calls in `directory` left behind because their process
    /// was killed between creating and renaming them (`.NAME.tmp-PID-N`, PID no longer running), and
    /// returns how many it removed. Without this, every SIGKILL during a save leaves a file as large as
    /// the content, forever. Files of live processes (PID still running, this process included) are
    /// kept; so is anything not named like one of ours. Errors (a missing directory) remove nothing.
    ///
    /// The corresponding C functions are `opendir(3)`, `kill(2)` with signal 0 and `unlink(2)`.
    @discardableResult
    public static func removeAbandonedTemporaryFiles(in directory: String) -> Int {
        guard let names = try? FileSystem.listDirectory(directory) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(".") {
            guard let owner = temporaryFileOwner(name), owner != ProcessIdentity.processID else { continue }
            // kill(pid, 0) fails with ESRCH only when no such process exists (EPERM: it runs as another user).
            guard kill(owner, 0) != 0 && errno == ESRCH else { continue }
            if (try? FileSystem.removeFile(directory + "/" + name, ignoreMissing: true)) != nil { removed += 1 }
        }
        return removed
    }

    /// The PID in a temporary file name made by `write` (`.NAME.tmp-PID-N`), or nil for any other name.
    static func temporaryFileOwner(_ name: String) -> Int32? {
        // The suffix after the last ".tmp-" is "PID-N", both decimal.
        let bytes = Array(name.utf8), marker = Array(".tmp-".utf8)
        guard bytes.first == UInt8(ascii: "."), bytes.count > marker.count + 1,
              let at = (1...(bytes.count - marker.count)).reversed().first(where: { bytes[$0..<$0 + marker.count].elementsEqual(marker) })
        else { return nil }
        let fields = bytes[(at + marker.count)...].split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        guard fields.count == 2, let pid = Int32(String(decoding: fields[0], as: UTF8.self)), pid > 0,
              UInt32(String(decoding: fields[1], as: UTF8.self)) != nil else { return nil }
        return pid
    }
}
