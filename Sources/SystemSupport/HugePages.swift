// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Asking the kernel to back a large buffer with huge pages.
public enum HugePages {
    private static let size = 2 << 20

    /// Advises the kernel that the 2 MiB-aligned part of `count` bytes at `start` should be backed by
    /// transparent huge pages when first touched: a 4K screenshot's 25 MiB buffer then faults in a dozen times
    /// instead of 6 400 (30 ms of kernel time against 7 on this machine, docs/performance.md). Call it before
    /// writing the buffer; it changes no contents and failures are ignored (no THP, "never", old kernels).
    /// The corresponding C function is `madvise(2)` with `MADV_HUGEPAGE`.
    public static func advise(_ start: UnsafeMutableRawPointer, count: Int) {
        guard let (aligned, length) = wholeBlocks(of: size, in: start, count: count) else { return }
        _ = madvise(aligned, length, MADV_HUGEPAGE)
    }
}
