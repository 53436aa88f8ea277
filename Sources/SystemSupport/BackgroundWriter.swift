// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Carries out file changes on a thread of its own, one at a time in the order they were asked for, so
/// that an event loop never waits for a disk: `write` is `AtomicFile.write` (temporary file, fsync, rename,
/// fsync of the directory), so a file is always whole, the old content or the new.
///
/// Contract:
/// - Changes happen in submission order; a change submitted after another never lands before it.
/// - `pendingBytes(for:)` gives the bytes of the last write to `path` still queued or in progress, so a
///   reader on the submitting side sees its own writes before they reach the disk.
/// - `drain()` returns once everything submitted before it is done (a clean stop).
/// - Failures are kept, one line each (never content), for the owner to log: `takeFailures()`.
/// - A `notice` change is a mark in the queue: once every change before it is done, its id is queued for
///   `takeNotices()` and `noticeDescriptor` becomes readable (the loop learns that a file it asked for is
///   on disk without waiting for it).
/// - An `append` to a file whose last `write` or `append` failed is not made (`isBroken(_:)` says so until a
///   `write` of that file succeeds): records that follow a lost one would not be where their writer put them.
/// - A process killed meanwhile loses the queued changes, never a file already written.
///
/// The thread lives as long as the process; only the queue is shared, under one mutex.
public final class BackgroundWriter: @unchecked Sendable {
    /// One file change.
    public enum Change: Sendable {
        /// `AtomicFile.write(bytes, to: path, mode: mode)`.
        case write(path: String, bytes: [UInt8], mode: FilePermissions)
        /// `AtomicFile.write(segments:to:mode:)`: the concatenation, written from the arrays that hold it.
        case writeSegments(path: String, segments: [[UInt8]], mode: FilePermissions)
        /// `AtomicFile.link(existing, to: path)`: `path` becomes the file `existing` names (written before).
        case link(existing: String, path: String)
        /// `AtomicFile.commit(temporary, length:, patches:, to: path)`: a file filled over time named `path`.
        case commit(temporary: String, length: Int, patches: [Patch], path: String)
        /// `AppendOnlyFile.write(bytes, to: path, at: offset)`: a record added to a journal, on the device once done.
        case append(path: String, offset: Int, bytes: [UInt8])
        /// Removes `path` if it exists.
        case remove(path: String)
        /// Removes the files of `directory` whose name has one of `suffixes` or starts with a dot.
        case sweep(directory: String, suffixes: [String])
        /// Nothing to change: `id` is handed back (`takeNotices`) once the changes before it are done.
        case notice(id: UInt64)
    }

    /// Bytes to write at an offset of a file (`commit`).
    public struct Patch: Sendable, Equatable {
        public var offset: Int
        public var bytes: [UInt8]
        public init(offset: Int, bytes: [UInt8]) {
            self.offset = offset
            self.bytes = bytes
        }
    }

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// Guarded by `mutex`. The first change is the one in progress; it leaves the queue once done.
    private var queue: [Change] = []
    private var failures: [String] = []
    private var notices: [UInt64] = []
    /// The files whose last `write` or `append` failed (guarded by `mutex`; touched only by whoever performs).
    private var broken: Set<String> = []
    private var started = false
    /// False if the thread could not be started: changes are then carried out by `submit` itself.
    private var threaded = true

    private let wake: (readEnd: FileDescriptor, writeEnd: FileDescriptor)?

    /// Readable once a `notice` is done (nil if no pipe could be made: `takeNotices()` is then called on a
    /// timer by the owner all the same).
    public var noticeDescriptor: FileDescriptor? { wake?.readEnd }

    public init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        wake = try? FileDescriptor.pipe(nonBlocking: true)
    }

    /// Queues `change`; returns at once. The thread starts with the first change.
    public func submit(_ change: Change) {
        pthread_mutex_lock(mutex)
        if !started {
            started = true
            threaded = startThread()
        }
        guard threaded else {
            // Without a thread the change is made here, in order all the same: nothing is lost.
            pthread_mutex_unlock(mutex)
            if let failure = perform(change) { locked { failures.append(failure) } }
            if case .notice(let id) = change { deliver(id) }
            return
        }
        queue.append(change)
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// The bytes of the last `write` to `path` not yet finished, or nil if none is queued.
    public func pendingBytes(for path: String) -> [UInt8]? {
        locked { pendingBytesLocked(for: path) }
    }

    /// `pendingBytes` with the mutex held. A link still queued gives the bytes of the file it links to.
    private func pendingBytesLocked(for path: String) -> [UInt8]? {
        for change in queue.reversed() {
            switch change {
            case .write(let target, let bytes, _) where target == path: return bytes
            case .writeSegments(let target, let segments, _) where target == path: return Array(segments.joined())
            case .link(let existing, let target) where target == path:
                return pendingBytesLocked(for: existing) ?? (try? FileSystem.readFile(existing, limit: Int.max))
            case .remove(let target) where target == path: return nil
            case .commit(_, _, _, let target) where target == path: return nil
            default: continue
            }
        }
        return nil
    }

    /// `count` bytes at `offset` of `path` as they are once every change submitted so far is done: from the queue
    /// when a queued `append` or `write` of `path` holds them (the newest first; nothing older than a queued `write`
    /// of the file counts), else from the file. Nil when they are in neither (the file is shorter, or unreadable).
    public func bytes(of path: String, at offset: Int, count: Int) -> [UInt8]? {
        let queued = locked { () -> [UInt8]?? in
            for change in queue.reversed() {
                switch change {
                case .append(let target, let start, let bytes) where target == path && start <= offset && offset + count <= start + bytes.count:
                    return .some(Array(bytes[(offset - start)..<(offset - start + count)]))
                case .write(let target, let bytes, _) where target == path:
                    return .some(offset + count <= bytes.count ? Array(bytes[offset..<(offset + count)]) : nil)
                case .remove(let target) where target == path:
                    return .some(nil)
                default: continue
                }
            }
            return nil
        }
        if let queued { return queued }
        guard let fd = try? FileDescriptor.open(path, [.readOnly, .noFollow]) else { return nil }
        defer { try? fd.close() }
        return try? fd.read(count: count, at: offset)
    }

    /// True when the last `write` or `append` of `path` that was carried out failed (what the writer's owner
    /// mends by writing the file whole again).
    public func isBroken(_ path: String) -> Bool { locked { broken.contains(path) } }

    /// Changes submitted and not yet done.
    public var pendingCount: Int { locked { queue.count } }

    /// Waits until every change submitted so far is done.
    public func drain() {
        pthread_mutex_lock(mutex)
        while !queue.isEmpty { pthread_cond_wait(condition, mutex) }
        pthread_mutex_unlock(mutex)
    }

    private var lastNoticeID: UInt64 = 0

    /// Queues a `notice` with a new id (unique for this writer), and returns the id.
    public func submitNotice() -> UInt64 {
        let id = locked { () -> UInt64 in
            lastNoticeID += 1
            return lastNoticeID
        }
        submit(.notice(id: id))
        return id
    }

    /// The ids of the notices done since the last call, in order; empties `noticeDescriptor`.
    public func takeNotices() -> [UInt64] {
        if let wake {
            var buffer = [UInt8](repeating: 0, count: 256)
            while let n = try? buffer.withUnsafeMutableBytes({ try wake.readEnd.read(into: $0) }), n > 0 {}
        }
        return locked {
            defer { notices = [] }
            return notices
        }
    }

    private func deliver(_ id: UInt64) {
        locked { notices.append(id) }
        if let wake { _ = try? wake.writeEnd.write([1]) }
    }

    /// The failures since the last call, oldest first.
    public func takeFailures() -> [String] {
        locked {
            defer { failures = [] }
            return failures
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Starts the thread (called with the mutex held); false if it could not be started.
    private func startThread() -> Bool {
        guard DetachedThread.start({ [self] in run() }) else {
            failures.append("cannot start the writer thread: writing on the event loop")
            return false
        }
        return true
    }

    private func run() {
        while true {
            pthread_mutex_lock(mutex)
            while queue.isEmpty { pthread_cond_wait(condition, mutex) }
            let change = queue[0]
            pthread_mutex_unlock(mutex)
            let failure = perform(change)
            pthread_mutex_lock(mutex)
            queue.removeFirst()
            if let failure { failures.append(failure) }
            if case .notice(let id) = change { notices.append(id) }
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
            if case .notice = change, let wake { _ = try? wake.writeEnd.write([1]) }
        }
    }

    /// Carries out one change, keeping `broken` up to date; a line saying what failed, or nil.
    private func perform(_ change: Change) -> String? {
        switch change {
        case .append(let path, _, _) where locked({ broken.contains(path) }):
            return "not appending to \(path): an earlier change of it failed"
        case .write(let path, _, _), .append(let path, _, _):
            let failure = Self.perform(change)
            locked { if failure == nil { broken.remove(path) } else { broken.insert(path) } }
            return failure
        default:
            return Self.perform(change)
        }
    }

    /// Carries out one change; a line saying what failed, or nil.
    static func perform(_ change: Change) -> String? {
        switch change {
        case .append(let path, let offset, let bytes):
            do { try AppendOnlyFile.write(bytes, to: path, at: offset) } catch { return "cannot append to \(path): \(error)" }
        case .write(let path, let bytes, let mode):
            do { try AtomicFile.write(bytes, to: path, mode: mode) } catch { return "cannot write \(path): \(error)" }
        case .writeSegments(let path, let segments, let mode):
            do { try AtomicFile.write(segments: segments, to: path, mode: mode) } catch { return "cannot write \(path): \(error)" }
        case .link(let existing, let path):
            do { try AtomicFile.link(existing, to: path) } catch { return "cannot link \(path) to \(existing): \(error)" }
        case .commit(let temporary, let length, let patches, let path):
            do { try AtomicFile.commit(temporary, length: length, patches: patches.map { ($0.offset, $0.bytes) }, to: path) } catch {
                return "cannot write \(path): \(error)"
            }
        case .remove(let path):
            do { try FileSystem.removeFile(path, ignoreMissing: true) } catch { return "cannot remove \(path): \(error)" }
        case .sweep(let directory, let suffixes):
            guard let names = try? FileSystem.listDirectory(directory) else { return nil }
            for name in names where name.hasPrefix(".") || suffixes.contains(where: { name.hasSuffix($0) }) {
                try? FileSystem.removeFile(directory + "/" + name, ignoreMissing: true)
            }
        case .notice:
            break
        }
        return nil
    }
}
