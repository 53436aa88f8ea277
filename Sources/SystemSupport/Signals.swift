// SPDX-License-Identifier: Apache-2.0
import Glibc

/// A signal number.
public struct Signal: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// `SIGTERM`: please exit (systemd's stop).
    public static let terminate = Signal(rawValue: SIGTERM)
    /// `SIGINT`: Ctrl-C.
    public static let interrupt = Signal(rawValue: SIGINT)
    /// `SIGQUIT`: Ctrl-\\ at a terminal.
    public static let quit = Signal(rawValue: SIGQUIT)
    /// `SIGHUP`: reload the configuration.
    public static let hangup = Signal(rawValue: SIGHUP)
    /// `SIGCHLD`: a child exited.
    public static let child = Signal(rawValue: SIGCHLD)
    /// `SIGPIPE`: wrote to a closed pipe or socket.
    public static let pipe = Signal(rawValue: SIGPIPE)
    /// `SIGKILL`: cannot be caught, blocked or ignored.
    public static let kill = Signal(rawValue: SIGKILL)
    /// `SIGUSR1`.
    public static let user1 = Signal(rawValue: SIGUSR1)
    /// `SIGUSR2`.
    public static let user2 = Signal(rawValue: SIGUSR2)

    /// `"SIGTERM"` and so on, or `"signal N"`.
    public var description: String {
        switch rawValue {
        case SIGTERM: return "SIGTERM"
        case SIGINT: return "SIGINT"
        case SIGHUP: return "SIGHUP"
        case SIGCHLD: return "SIGCHLD"
        case SIGPIPE: return "SIGPIPE"
        case SIGKILL: return "SIGKILL"
        case SIGUSR1: return "SIGUSR1"
        case SIGUSR2: return "SIGUSR2"
        case SIGQUIT: return "SIGQUIT"
        case SIGABRT: return "SIGABRT"
        case SIGSEGV: return "SIGSEGV"
        default: return "signal \(rawValue)"
        }
    }
}

/// Process-wide signal dispositions.
public enum Signals {
    /// Ignores `signal` (e.g. `.pipe`, so a write to a closed socket fails with `EPIPE` instead).
    /// Children started by `ChildProcess.spawn` get the default disposition back.
    ///
    /// The corresponding C function is `sigaction(2)` with `SIG_IGN`.
    public static func ignore(_ signal: Signal) throws {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = SIG_IGN
        sigemptyset(&action.sa_mask)
        _ = try valueOrErrno("sigaction(\(signal), SIG_IGN)") { sigaction(signal.rawValue, &action, nil) }
    }

    /// Restores the default disposition of `signal`.
    ///
    /// The corresponding C function is `sigaction(2)` with `SIG_DFL`.
    public static func restoreDefault(_ signal: Signal) throws {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = SIG_DFL
        sigemptyset(&action.sa_mask)
        _ = try valueOrErrno("sigaction(\(signal), SIG_DFL)") { sigaction(signal.rawValue, &action, nil) }
    }

    /// Sends `signal` to the calling thread, as `raise(3)` does. For tests.
    ///
    /// The corresponding C function is `raise(3)`.
    public static func raise(_ signal: Signal) throws {
        let result = Glibc.raise(signal.rawValue)
        if result != 0 { throw Errno.current("raise(\(signal))") }
    }

    /// Sends `signal` to process `processID`.
    ///
    /// The corresponding C function is `kill(2)`.
    public static func send(_ signal: Signal, to processID: Int32) throws {
        _ = try valueOrErrno("kill(\(processID), \(signal))") { Glibc.kill(processID, signal.rawValue) }
    }
}

/// Signals delivered as readable data on a descriptor, so the poll loop handles them like any input.
///
/// Creating one blocks the signals for the calling thread (the daemon's only thread) so that they
/// stay pending until read here instead of running a handler or killing the process.
public struct SignalDescriptor: Hashable, Sendable {
    public let fileDescriptor: FileDescriptor
    public let signals: [Signal]

    /// Blocks `signals` and opens a non-blocking, `O_CLOEXEC` signalfd for them.
    ///
    /// The corresponding C functions are `pthread_sigmask(3)` with `SIG_BLOCK` and `signalfd(2)`.
    public init(signals: [Signal]) throws {
        var mask = sigset_t()
        sigemptyset(&mask)
        for signal in signals { sigaddset(&mask, signal.rawValue) }
        try zeroOrErrorNumber("pthread_sigmask(SIG_BLOCK)") { pthread_sigmask(SIG_BLOCK, &mask, nil) }
        let raw = try valueOrErrno("signalfd") { GNUExtensions.signalfd(-1, &mask, O_CLOEXEC | O_NONBLOCK) }
        self.fileDescriptor = FileDescriptor(rawValue: raw)
        self.signals = signals
    }

    /// The signals received since the last call, in arrival order (each standard signal at most
    /// once while pending, as the kernel coalesces them). Empty when none is pending.
    ///
    /// The corresponding C function is `read(2)` on the signalfd.
    public func readPending() throws -> [Signal] {
        var received: [Signal] = []
        let recordSize = GNUExtensions.signalfdSiginfoSize
        var buffer = [UInt8](repeating: 0, count: recordSize * 16)
        while true {
            let count: Int
            do {
                count = try buffer.withUnsafeMutableBytes { try fileDescriptor.read(into: $0) }
            } catch Errno.Code.wouldBlock {
                return received
            }
            if count < recordSize { return received }
            for offset in stride(from: 0, to: count - recordSize + 1, by: recordSize) {
                // ssi_signo, the first field of struct signalfd_siginfo, is a native-endian uint32.
                let number = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }
                received.append(Signal(rawValue: Int32(bitPattern: number)))
            }
        }
    }

    /// Closes the signalfd. The signals stay blocked: unblocking a pending `SIGTERM` now would kill
    /// the process mid-teardown.
    ///
    /// The corresponding C function is `close(2)`.
    public func close() throws {
        try fileDescriptor.close()
    }
}
