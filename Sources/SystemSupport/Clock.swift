// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A point on the monotonic clock, in nanoseconds since an unspecified start (usually boot).
///
/// Only differences are meaningful. Use it for timeouts; use `WallClock` for timestamps people read.
public struct MonotonicInstant: RawRepresentable, Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds on `CLOCK_MONOTONIC`.
    public var rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public init(nanoseconds: UInt64) { self.rawValue = nanoseconds }

    public var nanoseconds: UInt64 { rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Moves by `duration`, saturating at the ends of the range instead of trapping.
    public static func + (lhs: Self, rhs: Duration) -> Self {
        let delta = rhs.nanosecondsSaturated
        if delta >= 0 {
            let (sum, overflow) = lhs.rawValue.addingReportingOverflow(UInt64(delta))
            return Self(rawValue: overflow ? .max : sum)
        }
        let magnitude = delta.magnitude
        return Self(rawValue: lhs.rawValue > magnitude ? lhs.rawValue - magnitude : 0)
    }

    public static func - (lhs: Self, rhs: Duration) -> Self { lhs + (.zero - rhs) }

    public static func += (lhs: inout Self, rhs: Duration) { lhs = lhs + rhs }

    /// The time from `rhs` to `lhs` (negative when `lhs` is earlier).
    public static func - (lhs: Self, rhs: Self) -> Duration {
        if lhs >= rhs { return .nanoseconds(Int64(clamping: lhs.rawValue - rhs.rawValue)) }
        return .nanoseconds(-Int64(clamping: rhs.rawValue - lhs.rawValue))
    }

    /// Milliseconds from `self` until `deadline`, rounded up so that a `poll` waiting this long does
    /// not wake before the deadline; 0 when the deadline has passed. For `Poller.wait`'s timeout.
    public func millisecondsUntil(_ deadline: Self) -> Int {
        guard deadline > self else { return 0 }
        let nanoseconds = deadline.rawValue - rawValue
        let milliseconds = nanoseconds / 1_000_000 + (nanoseconds % 1_000_000 == 0 ? 0 : 1)
        return Int(clamping: milliseconds)
    }

    public var description: String { "\(rawValue)ns" }
}

extension Duration {
    /// The duration in whole nanoseconds, truncated toward zero and clamped to `Int64`.
    public var nanosecondsSaturated: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow2 { return seconds < 0 ? .min : .max }
        return sum
    }
}

/// Where the daemon gets "now" for its timers, so tests can substitute a clock they move by hand.
///
/// (Named `MonotonicClock` rather than `Clock` so it does not collide with the standard library's `Clock`.)
public protocol MonotonicClock: Sendable {
    /// The current instant; never goes backwards.
    func now() -> MonotonicInstant
}

/// The real monotonic clock.
public struct SystemClock: MonotonicClock {
    public init() {}

    /// The corresponding C function is `clock_gettime(2)` with `CLOCK_MONOTONIC`.
    public func now() -> MonotonicInstant {
        var time = timespec()
        // CLOCK_MONOTONIC cannot fail with a valid pointer.
        clock_gettime(CLOCK_MONOTONIC, &time)
        return MonotonicInstant(rawValue: UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec))
    }
}

/// Wall-clock time, for timestamps shown to people (history entries). It can jump; never use it for timeouts.
public enum WallClock {
    /// Milliseconds since 1970-01-01 00:00:00 UTC.
    ///
    /// The corresponding C function is `clock_gettime(2)` with `CLOCK_REALTIME`.
    public static var nowMilliseconds: Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }

    /// Whole seconds since 1970-01-01 00:00:00 UTC.
    ///
    /// The corresponding C function is `clock_gettime(2)` with `CLOCK_REALTIME`.
    public static var now: Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec)
    }

    /// Nanoseconds since 1970-01-01 00:00:00 UTC.
    public static var nowNanoseconds: Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}

/// The earliest of some deadlines, gathered one by one: a loop that asks every part of itself for its next
/// deadline on every turn builds no arrays to find it. Inlinable, so that it costs a comparison where it is used.
public struct Earliest: Sendable {
    @usableFromInline var earliest: MonotonicInstant?

    @inlinable public init() { earliest = nil }

    /// The earliest deadline added; nil when none was.
    @inlinable public var value: MonotonicInstant? { earliest }

    /// Adds `deadline` (nothing, when nil).
    @inlinable public mutating func add(_ deadline: MonotonicInstant?) {
        guard let deadline else { return }
        if let current = earliest, current <= deadline { return }
        earliest = deadline
    }
}

extension Dictionary {
    /// The entries whose `deadline` has come by `now`, in the order `areInIncreasingOrder` gives their keys: an expiry
    /// walk the loop makes every turn sorts nothing, and builds no array, while none is due. Inlinable, as `Earliest`.
    @inlinable public func due(by now: MonotonicInstant, deadline: (Value) -> MonotonicInstant,
                               ordered areInIncreasingOrder: (Key, Key) -> Bool) -> [(key: Key, value: Value)] {
        guard values.contains(where: { deadline($0) <= now }) else { return [] }
        return filter { deadline($0.value) <= now }.sorted { areInIncreasingOrder($0.key, $1.key) }
    }
}
