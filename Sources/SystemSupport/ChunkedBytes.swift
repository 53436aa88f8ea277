// SPDX-License-Identifier: Apache-2.0

/// Bytes of a length not known in advance (a pipe's, to its end), read into chunks of memory of their own and
/// handed over once as one array of exactly their size.
///
/// Reading into a growing array costs a copy of everything so far at each growth, holds the old and the new
/// buffer side by side while it grows, and goes through a buffer of its own for each read. Here each read goes
/// straight into the free space of the last chunk; `take()` makes the one array and frees each chunk as soon as
/// its bytes are copied into it, so what is held at any moment is the value and about two huge pages (the chunk
/// being copied, the array's page being filled). The first chunk is small (`firstChunkBytes`, from the heap): a
/// line of text costs no large block. The later ones are 2 MiB, aligned and advised to transparent huge pages,
/// as is the array (`HugePages`): a 10 MiB copy faults in about a dozen times instead of 5,000 (4 KiB pages, once
/// for the chunks and once for the array), about half the daemon's CPU for keeping it (docs/performance.md).
///
/// Contract: one owner, one thread; a reference type, so that the bytes are never copied as the value holding
/// it is. What is not taken is freed with it.
public final class ChunkedBytes {
    /// What one `read(from:)` did.
    public enum ReadOutcome: Equatable, Sendable {
        /// This many bytes (at least one) were added.
        case read(Int)
        /// Nothing to read now (`EAGAIN`); wait for `.readable`.
        case wouldBlock
        /// The peer closed its end.
        case endOfFile
    }

    public static let firstChunkBytes = 64 << 10
    public static let chunkBytes = 2 << 20

    private var chunks: [UnsafeMutableRawBufferPointer] = []
    /// How many bytes of the last chunk are filled.
    private var filledInLast = 0
    /// The bytes read so far.
    public private(set) var count = 0

    public init() {}

    deinit {
        for chunk in chunks { chunk.deallocate() }
    }

    /// Reads once from `fd` into the free space of the last chunk (a new chunk when it is full), at most `limit`
    /// bytes in this call. Non-blocking descriptors give `.wouldBlock` when there is nothing to read now.
    ///
    /// The corresponding C function is `read(2)`.
    public func read(from fd: FileDescriptor, limit: Int = .max) throws -> ReadOutcome {
        precondition(limit > 0, "ChunkedBytes.read(from:limit:) needs room for at least one byte")
        if chunks.isEmpty || filledInLast == chunks[chunks.count - 1].count {
            if chunks.isEmpty {
                chunks.append(.allocate(byteCount: Self.firstChunkBytes, alignment: 16))
            } else {
                let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkBytes, alignment: Self.chunkBytes)
                HugePages.advise(chunk.baseAddress!, count: chunk.count)
                chunks.append(chunk)
            }
            filledInLast = 0
        }
        let last = chunks[chunks.count - 1]
        let end = last.count - filledInLast > limit ? filledInLast + limit : last.count
        let room = UnsafeMutableRawBufferPointer(rebasing: last[filledInLast..<end])
        let got: Int
        do { got = try fd.read(into: room) } catch Errno.Code.wouldBlock { return .wouldBlock }
        if got == 0 { return .endOfFile }
        filledInLast += got
        count += got
        return .read(got)
    }

    /// Hands every byte read to `body`, in order, a chunk at a time, and empties this buffer (each chunk freed
    /// once `body` has had it, whether it returned or threw): for bytes that go on elsewhere, never made one array.
    public func drain(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        let pieces = chunks
        let lastFilled = filledInLast
        chunks = []
        filledInLast = 0
        count = 0
        defer { for chunk in pieces { chunk.deallocate() } }
        for (index, chunk) in pieces.enumerated() {
            let filled = index == pieces.count - 1 ? lastFilled : chunk.count
            if filled > 0 { try body(UnsafeRawBufferPointer(rebasing: chunk[0..<filled])) }
        }
    }

    /// Every byte read, in order, as one array of exactly `count` bytes; empties this buffer (its chunks freed
    /// one by one as they are copied).
    public func take() -> [UInt8] {
        let total = count
        let pieces = chunks
        let lastFilled = filledInLast
        chunks = []
        filledInLast = 0
        count = 0
        guard total > 0 else {
            for chunk in pieces { chunk.deallocate() }
            return []
        }
        return [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            if let base = buffer.baseAddress { HugePages.advise(UnsafeMutableRawPointer(base), count: total) }
            var offset = 0
            for (index, chunk) in pieces.enumerated() {
                let filled = index == pieces.count - 1 ? lastFilled : chunk.count
                UnsafeMutableRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[offset..<offset + filled])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: chunk[0..<filled]))
                offset += filled
                chunk.deallocate()
            }
            initialized = total
        }
    }
}
