// SPDX-License-Identifier: Apache-2.0
import Glibc

/// An error number reported by a system call, with the operation that failed.
///
/// `code` is the raw `errno` value; `operation` names the call and, where it helps, its argument
/// (for example `open("/run/user/1000/pasteboard")`). The description reads like `strerror(3)`.
public struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    /// The raw error number, as stored in `errno`.
    public var code: Code
    /// What was being attempted, e.g. `"bind(/run/user/1000/pasteboard/control.sock)"`.
    public var operation: String

    public init(_ code: Code, operation: String) {
        self.code = code
        self.operation = operation
    }

    /// Captures the current value of `errno` for `operation`.
    static func current(_ operation: String) -> Errno {
        Errno(Code(rawValue: Glibc.errno), operation: operation)
    }

    /// `"operation: message (errno N)"`, the message from `strerror(3)`.
    public var description: String {
        "\(operation): \(code.message) (errno \(code.rawValue))"
    }

    /// A raw `errno` value with names for the ones callers match on.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let operationNotPermitted = Code(rawValue: EPERM)
        public static let noSuchFileOrDirectory = Code(rawValue: ENOENT)
        public static let interrupted = Code(rawValue: EINTR)
        public static let badFileDescriptor = Code(rawValue: EBADF)
        public static let noChildProcesses = Code(rawValue: ECHILD)
        public static let wouldBlock = Code(rawValue: EAGAIN)
        public static let permissionDenied = Code(rawValue: EACCES)
        public static let fileExists = Code(rawValue: EEXIST)
        public static let notDirectory = Code(rawValue: ENOTDIR)
        public static let invalidArgument = Code(rawValue: EINVAL)
        public static let brokenPipe = Code(rawValue: EPIPE)
        public static let nameTooLong = Code(rawValue: ENAMETOOLONG)
        public static let addressInUse = Code(rawValue: EADDRINUSE)
        public static let connectionRefused = Code(rawValue: ECONNREFUSED)
        public static let connectionReset = Code(rawValue: ECONNRESET)
        public static let fileTooLarge = Code(rawValue: EFBIG)
        public static let crossDevice = Code(rawValue: EXDEV)

        /// The message `strerror(3)` gives for this code.
        public var message: String { String(cString: strerror(rawValue)) }
        public var description: String { message }
    }
}

extension Errno.Code {
    /// Lets `catch Errno.Code.addressInUse` match an `Errno` with that code, whatever the operation.
    public static func ~= (pattern: Errno.Code, error: any Error) -> Bool {
        (error as? Errno)?.code == pattern
    }
}

/// Errors of this module that are not an `errno`: limits, unsafe directories, missing settings.
public enum SystemError: Error, Hashable, Sendable, CustomStringConvertible {
    /// More than `limit` bytes were offered where at most `limit` are accepted.
    case limitExceeded(operation: String, limit: Int)
    /// A Unix socket path does not fit in `sockaddr_un.sun_path` (`maximum` bytes without the NUL).
    case pathTooLong(path: String, maximum: Int)
    /// A directory we must trust is not owned by us or is reachable by others.
    case unsafeDirectory(path: String, reason: String)
    /// A needed environment variable is unset or empty.
    case missingEnvironment(name: String)
    /// A value could not be used, e.g. a string containing NUL passed where C needs a path.
    case invalidArgument(operation: String, reason: String)
    /// A file ended before the bytes a reader needed: `got` of `expected`.
    case unexpectedEndOfFile(operation: String, expected: Int, got: Int)

    public var description: String {
        switch self {
        case .limitExceeded(let operation, let limit):
            return "\(operation): more than \(limit) bytes"
        case .pathTooLong(let path, let maximum):
            return "socket path is \(path.utf8.count) bytes, longer than the \(maximum) bytes sun_path holds: \(path)"
        case .unsafeDirectory(let path, let reason):
            return "refusing to use \(path): \(reason)"
        case .missingEnvironment(let name):
            return "$\(name) is not set"
        case .invalidArgument(let operation, let reason):
            return "\(operation): \(reason)"
        case .unexpectedEndOfFile(let operation, let expected, let got):
            return "\(operation): the file ends after \(got) of the \(expected) bytes needed"
        }
    }
}

// MARK: - The one place for errno handling

/// Runs `body` until it does not fail with `EINTR`; a result of -1 becomes a thrown `Errno`.
///
/// Every blocking call in this module goes through here (or through `valueOrErrno` when a
/// retry would be wrong, as for `close(2)` on Linux).
@inline(__always)
func retryingInterrupts<T: FixedWidthInteger>(_ operation: @autoclosure () -> String, _ body: () throws -> T) throws -> T {
    while true {
        let result = try body()
        if result != -1 { return result }
        let code = Glibc.errno
        if code == EINTR { continue }
        throw Errno(Errno.Code(rawValue: code), operation: operation())
    }
}

/// Runs `body` once; a result of -1 becomes a thrown `Errno` (including `EINTR`).
@inline(__always)
func valueOrErrno<T: FixedWidthInteger>(_ operation: @autoclosure () -> String, _ body: () throws -> T) throws -> T {
    let result = try body()
    if result == -1 { throw Errno.current(operation()) }
    return result
}

/// Runs a `pthread`/`posix_spawn`-style call, which returns the error number instead of setting `errno`.
@inline(__always)
func zeroOrErrorNumber(_ operation: @autoclosure () -> String, _ body: () -> Int32) throws {
    let result = body()
    if result != 0 { throw Errno(Errno.Code(rawValue: result), operation: operation()) }
}
