// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Giving freed memory back to the system.
public enum MemoryRelease {
    /// `int malloc_trim(size_t pad)`: not in Swift's Glibc module (malloc.h), resolved like `GNUExtensions`.
    private typealias MallocTrim = @convention(c) (Int) -> Int32
    private static let mallocTrim: MallocTrim? = dlsym(nil, "malloc_trim").map { unsafeBitCast($0, to: MallocTrim.self) }

    /// Returns the free pages of every malloc arena to the kernel: after large conversions on worker threads,
    /// whose arenas glibc otherwise keeps at their peak. The corresponding C function is `malloc_trim(3)`.
    public static func trim() {
        _ = mallocTrim?(0)
    }
}
