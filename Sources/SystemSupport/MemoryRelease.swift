// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Giving freed memory back to the system.
public enum MemoryRelease {
    /// `int malloc_trim(size_t pad)`: not in Swift's Glibc module (malloc.h), resolved like `GNUExtensions`.
    private typealias MallocTrim = @convention(c) (Int) -> Int32
    private static let mallocTrim: MallocTrim? = dlsym(nil, "malloc_trim").map { unsafeBitCast($0, to: MallocTrim.self) }
    /// `int mallopt(int param, int value)`, from malloc.h as well.
    private typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
    private static let mallOpt: MallOpt? = dlsym(nil, "mallopt").map { unsafeBitCast($0, to: MallOpt.self) }
    /// malloc.h's `M_TRIM_THRESHOLD` and `M_MMAP_THRESHOLD`.
    private static let trimThreshold: Int32 = -1, mmapThreshold: Int32 = -3

    /// Returns the free pages of every malloc arena to the kernel: after large conversions on worker threads,
    /// whose arenas glibc otherwise keeps at their peak. The corresponding C function is `malloc_trim(3)`.
    public static func trim() {
        _ = mallocTrim?(0)
    }

    /// Gives back the pages of a scratch buffer between uses: the whole pages within `buffer` are dropped (they
    /// read as zeros afterwards and are faulted in again, zeroed, when next touched), so a buffer used now and then
    /// holds no memory in between. Failures are ignored (the pages then stay). The corresponding C function is
    /// `madvise(2)` with `MADV_DONTNEED`.
    public static func discardPages(of buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress,
              let (aligned, length) = wholeBlocks(of: Int(sysconf(Int32(_SC_PAGESIZE))), in: base, count: buffer.count) else { return }
        _ = madvise(aligned, length, MADV_DONTNEED)
    }

    /// Fixes how the allocator holds memory, for a process that handles large buffers now and then (the
    /// daemon, at start): a block of `largeBlockBytes` or more is a mapping of its own, given back to the
    /// system the moment it is freed, and at most `heapSlackBytes` of free heap are kept for reuse.
    ///
    /// glibc's own thresholds move: after freeing a 10 MiB block it serves blocks up to that size from the heap,
    /// where a freed copy then stays (replaced by a short text, a 10 MiB snapshot kept 11 MB until the next
    /// large snapshot), and until then it gives back and faults in again, chunk after chunk, the buffers an
    /// INCR transfer reuses (a first 10 MiB snapshot: 6,500 page faults, 2,700 with these values).
    /// The corresponding C function is `mallopt(3)` (`M_MMAP_THRESHOLD`, `M_TRIM_THRESHOLD`).
    public static func holdLargeBlocksApart(largeBlockBytes: Int = 1 << 20, heapSlackBytes: Int = 1 << 20) {
        _ = mallOpt?(mmapThreshold, Int32(clamping: largeBlockBytes))
        _ = mallOpt?(trimThreshold, Int32(clamping: heapSlackBytes))
    }
}

/// The part of `count` bytes at `start` made of whole `block`-aligned blocks (`block` a power of two), or nil
/// when no whole block lies within them: the range `madvise(2)` is given.
func wholeBlocks(of block: Int, in start: UnsafeMutableRawPointer, count: Int) -> (UnsafeMutableRawPointer, Int)? {
    let first = (Int(bitPattern: start) + block - 1) & ~(block - 1)
    let end = (Int(bitPattern: start) + count) & ~(block - 1)
    guard end > first, let aligned = UnsafeMutableRawPointer(bitPattern: first) else { return nil }
    return (aligned, end - first)
}
