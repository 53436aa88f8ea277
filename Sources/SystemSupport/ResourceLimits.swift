// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The process's limit on open file descriptors (`RLIMIT_NOFILE`).
///
/// systemd starts services with a soft limit of 1024 and a much higher hard limit, and asks programs
/// that need more descriptors (and do not use `select(2)`) to raise the soft limit themselves.
public enum OpenFileLimit {
    /// The soft and hard limits; `nil` for "unlimited".
    ///
    /// The corresponding C function is `getrlimit(2)`.
    public static func current() throws -> (soft: Int?, hard: Int?) {
        var limit = rlimit()
        _ = try valueOrErrno("getrlimit(RLIMIT_NOFILE)") { getrlimit(RLIMIT_NOFILE_CONSTANT, &limit) }
        return (value(limit.rlim_cur), value(limit.rlim_max))
    }

    /// Raises the soft limit to the hard limit (never lowers it) and returns the soft limit now in force,
    /// `nil` for unlimited. On failure the limit is unchanged and the current soft limit is returned.
    ///
    /// The corresponding C functions are `getrlimit(2)` and `setrlimit(2)`.
    @discardableResult
    public static func raiseToHardLimit() throws -> Int? {
        var limit = rlimit()
        _ = try valueOrErrno("getrlimit(RLIMIT_NOFILE)") { getrlimit(RLIMIT_NOFILE_CONSTANT, &limit) }
        guard limit.rlim_cur != limit.rlim_max else { return value(limit.rlim_cur) }
        var raised = limit
        raised.rlim_cur = limit.rlim_max
        guard setrlimit(RLIMIT_NOFILE_CONSTANT, &raised) == 0 else { return value(limit.rlim_cur) }
        return value(raised.rlim_cur)
    }

    private static func value(_ raw: rlim_t) -> Int? {
        raw > rlim_t(Int.max) ? nil : Int(raw)   // RLIM_INFINITY is all ones
    }
}

/// Glibc imports `RLIMIT_NOFILE` as an enum case of `__rlimit_resource` that the functions take as a raw value.
private let RLIMIT_NOFILE_CONSTANT = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
