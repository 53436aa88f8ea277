// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Copying, moving and removing whole files and directory trees: what pasting files that a file manager
/// copied or cut does.
///
/// Nothing is overwritten unless asked, and then only a file or a symbolic link, replaced all at once; a
/// directory in the way is never replaced. Symbolic links are copied as links (never followed, so a link
/// loop cannot make a copy endless); regular files keep their permission bits (without set-user-ID,
/// set-group-ID and sticky); directories are copied to `maximumDepth` levels; FIFOs, sockets and devices
/// are skipped and named in the result.
public enum FileTree {
    /// The deepest directory tree copied.
    public static let maximumDepth = 256

    /// Why a file was not copied or moved, beside the `Errno`s of the calls that failed.
    public enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        /// Something is at the destination and replacing was not asked for (`EEXIST`).
        case exists(String)
        /// A directory is at the destination: never replaced.
        case directoryInTheWay(String)
        /// The source is a directory and the destination is inside it.
        case intoItself(String)
        case tooDeep(String)

        public var description: String {
            switch self {
            case .exists(let path): "\(path) exists"
            case .directoryInTheWay(let path): "\(path) is a directory, which is never replaced"
            case .intoItself(let path): "\(path) would be inside the directory it copies"
            case .tooDeep(let path): "\(path) is more than \(FileTree.maximumDepth) directories deep"
            }
        }
    }

    /// Copies `source` — a file, a symbolic link or a directory tree — to `destination`. With `replacing`,
    /// a file or symbolic link already at `destination` is replaced at once (a new file renamed over it).
    /// Returns the paths of what was skipped (FIFOs, sockets, devices). A failure in a directory tree
    /// leaves what was copied so far; a failure in a file removes the part written.
    ///
    /// The corresponding C functions are `lstat(2)`, `open(2)` with `O_EXCL`, `read(2)`, `write(2)`,
    /// `fchmod(2)`, `mkdir(2)`, `readlink(2)`, `symlink(2)` and `rename(2)`.
    @discardableResult
    public static func copy(_ source: String, to destination: String, replacing: Bool = false) throws -> [String] {
        let status = try FileSystem.status(source, followSymbolicLinks: false)
        // Before replacing too: a file inside `source` replaced by a copy of `source` would copy its own
        // temporary into itself.
        if status.kind == .directory, try isInside(destination, directory: source) { throw Refusal.intoItself(destination) }
        if try mayReplace(destination, replacing: replacing) {
            // A new copy beside it, renamed over it: readers see the old file or the new one (a directory
            // cannot be renamed over a file: the file goes just before).
            let temporary = FileSystem.parentDirectory(of: destination) + "/.pb-paste-\(ProcessIdentity.processID)-"
                + String(UInt64.random(in: 0...UInt64.max), radix: 36)
            var skipped: [String] = []
            do {
                try copyEntry(source, status: status, to: temporary, depth: 0, skipped: &skipped)
                if status.kind == .directory { try FileSystem.removeFile(destination) }
                try FileSystem.rename(temporary, to: destination)
            } catch {
                try? remove(temporary)
                throw error
            }
            return skipped
        }
        var skipped: [String] = []
        try copyEntry(source, status: status, to: destination, depth: 0, skipped: &skipped)
        return skipped
    }

    /// Moves `source` to `destination`: renamed when both are on one file system, else copied and then
    /// removed. Without `replacing`, something already at `destination` is an error (`renameat2` with
    /// `RENAME_NOREPLACE`, so nothing that appears meanwhile is replaced either); with it, only a file or a
    /// symbolic link is replaced. Returns what a copy skipped (the source then stays, since it is not
    /// removed unless every file was copied).
    ///
    /// The corresponding C functions are `renameat2(2)`, `rename(2)` and, across file systems, those of
    /// `copy` and `remove`.
    @discardableResult
    public static func move(_ source: String, to destination: String, replacing: Bool = false) throws -> [String] {
        let status = try FileSystem.status(source, followSymbolicLinks: false)
        _ = try mayReplace(destination, replacing: replacing)
        if status.kind == .directory, try isInside(destination, directory: source) { throw Refusal.intoItself(destination) }
        do {
            if replacing {
                // rename(2) replaces a file with a file at once; a directory cannot be renamed over one.
                if status.kind == .directory && FileSystem.fileExists(destination) { try FileSystem.removeFile(destination) }
                try FileSystem.rename(source, to: destination)
            } else {
                try renameWithoutReplacing(source, to: destination)
            }
            return []
        } catch Errno.Code.crossDevice {
            let skipped = try copy(source, to: destination, replacing: replacing)
            if skipped.isEmpty { try remove(source) }
            return skipped
        }
    }

    /// Removes a file, a symbolic link (not what it points to) or a whole directory tree.
    ///
    /// The corresponding C functions are `unlink(2)` and `rmdir(2)`.
    public static func remove(_ path: String) throws {
        try remove(path, depth: 0)
    }

    // MARK: - Steps

    /// Whether something is at `destination` to be replaced: false when nothing is; a refusal when it may not
    /// be (replacing not asked, or a directory).
    private static func mayReplace(_ destination: String, replacing: Bool) throws -> Bool {
        guard let existing = try? FileSystem.status(destination, followSymbolicLinks: false) else { return false }
        guard replacing else { throw Refusal.exists(destination) }
        guard existing.kind != .directory else { throw Refusal.directoryInTheWay(destination) }
        return true
    }

    private static func copyEntry(_ source: String, status: FileStatus, to destination: String, depth: Int,
                                  skipped: inout [String]) throws {
        switch status.kind {
        case .regular:
            try copyFile(source, to: destination, permissions: FilePermissions(rawValue: status.permissions.rawValue & 0o777))
        case .symbolicLink:
            try FileSystem.createSymbolicLink(at: destination, pointingTo: try FileSystem.symbolicLinkTarget(source))
        case .directory:
            guard depth < maximumDepth else { throw Refusal.tooDeep(source) }
            // Writable while it is filled, whatever the source's mode; the source's mode once it is full.
            try FileSystem.createDirectory(destination, mode: 0o700)
            for name in try FileSystem.listDirectory(source) {
                let child = source + "/" + name
                try copyEntry(child, status: try FileSystem.status(child, followSymbolicLinks: false),
                              to: destination + "/" + name, depth: depth + 1, skipped: &skipped)
            }
            try FileSystem.setPermissions(destination, FilePermissions(rawValue: status.permissions.rawValue & 0o777))
        default:
            skipped.append(source)
        }
    }

    private static func copyFile(_ source: String, to destination: String, permissions: FilePermissions) throws {
        let input = try FileDescriptor.open(source, [.readOnly, .noFollow])
        defer { try? input.close() }
        let output = try FileDescriptor.open(destination, [.writeOnly, .create, .exclusiveCreate, .noFollow], mode: 0o600)
        do {
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let count = try buffer.withUnsafeMutableBytes { try input.read(into: $0) }
                if count == 0 { break }
                try output.writeAll(buffer[0..<count])
            }
            _ = try valueOrErrno("fchmod(\(destination))") { fchmod(output.rawValue, permissions.rawValue) }
            try output.close()
        } catch {
            try? output.close()
            try? FileSystem.removeFile(destination)
            throw error
        }
    }

    private static func remove(_ path: String, depth: Int) throws {
        let status = try FileSystem.status(path, followSymbolicLinks: false)
        guard status.kind == .directory else { return try FileSystem.removeFile(path) }
        guard depth < maximumDepth else { throw Refusal.tooDeep(path) }
        for name in try FileSystem.listDirectory(path) { try remove(path + "/" + name, depth: depth + 1) }
        try FileSystem.removeDirectory(path)
    }

    private static func renameWithoutReplacing(_ source: String, to destination: String) throws {
        let result = GNUExtensions.renameat2(AT_FDCWD, source, AT_FDCWD, destination, GNUExtensions.renameNoReplace)
        guard result == -1 else { return }
        let code = Glibc.errno
        if code == EEXIST { throw Refusal.exists(destination) }
        // A file system without RENAME_NOREPLACE: look, then rename (the gap is ours to accept).
        if code == EINVAL || code == ENOSYS {
            if FileSystem.fileExists(destination) { throw Refusal.exists(destination) }
            return try FileSystem.rename(source, to: destination)
        }
        throw Errno(Errno.Code(rawValue: code), operation: "rename(\(source), \(destination))")
    }

    /// Whether `path` (which may not exist yet) is `directory` or inside it, once symbolic links are resolved.
    private static func isInside(_ path: String, directory: String) throws -> Bool {
        let resolvedDirectory = try FileSystem.resolvedPath(directory)
        let resolvedParent = try FileSystem.resolvedPath(FileSystem.parentDirectory(of: path))
        return resolvedParent == resolvedDirectory || resolvedParent.hasPrefix(resolvedDirectory == "/" ? "/" : resolvedDirectory + "/")
    }
}
