// SPDX-License-Identifier: Apache-2.0
import Glibc

/// Readiness conditions for `poll(2)`: asked for in a `PollRequest`, reported in the result.
public struct PollEvents: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int16
    public init(rawValue: Int16) { self.rawValue = rawValue }

    /// `POLLIN`: data to read, a connection to accept, or end of file.
    public static let readable = PollEvents(rawValue: Int16(POLLIN))
    /// `POLLOUT`: writing will not block.
    public static let writable = PollEvents(rawValue: Int16(POLLOUT))
    /// `POLLERR` (reported only): an error condition, e.g. the read end of a pipe was closed.
    public static let error = PollEvents(rawValue: Int16(POLLERR))
    /// `POLLHUP` (reported only): the peer hung up; reading may still return the rest of its data.
    public static let hangup = PollEvents(rawValue: Int16(POLLHUP))
    /// `POLLNVAL` (reported only): the descriptor is not open; a bug in the caller's bookkeeping.
    public static let invalid = PollEvents(rawValue: Int16(POLLNVAL))

    public var description: String {
        let names: [(PollEvents, String)] = [(.readable, "readable"), (.writable, "writable"), (.error, "error"), (.hangup, "hangup"), (.invalid, "invalid")]
        return "[" + names.filter { contains($0.0) }.map(\.1).joined(separator: ", ") + "]"
    }
}

/// One descriptor and what to wait for on it.
public struct PollRequest: Hashable, Sendable {
    public var fileDescriptor: FileDescriptor
    public var events: PollEvents

    public init(_ fileDescriptor: FileDescriptor, _ events: PollEvents) {
        self.fileDescriptor = fileDescriptor
        self.events = events
    }
}

/// Waits for readiness on several descriptors at once: the daemon's one blocking call.
public enum Poller {
    /// Waits until one of `requests` is ready or `timeoutMilliseconds` pass (nil: forever, 0: just look).
    ///
    /// Returns one `PollEvents` per request, in the same order; all empty on timeout. When a signal
    /// interrupts the wait (`EINTR`) it returns all-empty results rather than throwing, so the caller
    /// re-checks its timers and signals and waits again.
    ///
    /// The corresponding C function is `poll(2)`.
    public static func wait(_ requests: [PollRequest], timeoutMilliseconds: Int?) throws -> [PollEvents] {
        var descriptors = requests.map { pollfd(fd: $0.fileDescriptor.rawValue, events: $0.events.rawValue, revents: 0) }
        let timeout = timeoutMilliseconds.map { Int32(clamping: max(0, $0)) } ?? -1
        let result = descriptors.withUnsafeMutableBufferPointer { buffer in
            poll(buffer.baseAddress, nfds_t(buffer.count), timeout)
        }
        if result == -1 {
            let error = Errno.current("poll")
            if error.code == .interrupted { return Array(repeating: [], count: requests.count) }
            throw error
        }
        return descriptors.map { PollEvents(rawValue: $0.revents) }
    }

    /// Waits until `request` is ready or `timeoutMilliseconds` pass, as `wait(_:timeoutMilliseconds:)` for
    /// one descriptor: its `PollEvents`, empty on timeout or `EINTR`. No arrays: a client waiting on its one
    /// socket (`pb`) pays no array types' set-up at start.
    ///
    /// The corresponding C function is `poll(2)`.
    public static func wait(_ request: PollRequest, timeoutMilliseconds: Int?) throws -> PollEvents {
        var descriptor = pollfd(fd: request.fileDescriptor.rawValue, events: request.events.rawValue, revents: 0)
        let timeout = timeoutMilliseconds.map { Int32(clamping: max(0, $0)) } ?? -1
        if poll(&descriptor, 1, timeout) == -1 {
            let error = Errno.current("poll")
            if error.code == .interrupted { return [] }
            throw error
        }
        return PollEvents(rawValue: descriptor.revents)
    }
}
