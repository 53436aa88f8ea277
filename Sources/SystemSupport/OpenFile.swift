// SPDX-License-Identifier: Apache-2.0

/// A file opened for reading, closed when the last reference goes: what a reader that outlives the call that
/// opened it holds (the daemon serves kept content from its archive this way). The descriptor is read only
/// with `pread`, so readers on several threads never disturb each other.
///
/// A file replaced by rename or removed stays readable through an `OpenFile` opened before: the daemon's
/// files are replaced atomically, never rewritten in place.
public final class OpenFile: Sendable {
    public let descriptor: FileDescriptor
    /// The file's size when it was opened.
    public let size: Int
    /// The path it was opened at, for messages.
    public let path: String

    /// Opens `path` read-only.
    public init(readingAt path: String) throws {
        let descriptor = try FileDescriptor.open(path, .readOnly)
        do {
            size = Int(try descriptor.status().size)
        } catch {
            try? descriptor.close()
            throw error
        }
        self.descriptor = descriptor
        self.path = path
    }

    deinit { try? descriptor.close() }

    /// Exactly `count` bytes at `offset`.
    public func read(count: Int, at offset: Int) throws -> [UInt8] {
        try descriptor.read(count: count, at: offset)
    }
}
