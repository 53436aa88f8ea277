// SPDX-License-Identifier: Apache-2.0
import Glibc

/// The address of a Unix-domain socket: a file system path, or a Linux abstract name.
public enum UnixSocketAddress: Hashable, Sendable, CustomStringConvertible {
    /// A socket file, e.g. `/run/user/1000/pasteboard/control.sock`.
    case path(String)
    /// A name in the abstract namespace (no file), written `@name` by systemd and others.
    case abstract(String)

    /// `@name` → `.abstract(name)`, anything else → `.path`.
    public init(parsing text: String) {
        if text.hasPrefix("@") {
            self = .abstract(String(text.dropFirst()))
        } else {
            self = .path(text)
        }
    }

    public var description: String {
        switch self {
        case .path(let path): return path
        case .abstract(let name): return "@" + name
        }
    }

    /// The longest path `sun_path` holds, leaving room for its terminating NUL (107 on Linux).
    public static var maximumPathLength: Int {
        MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1
    }

    /// Calls `body` with this address as a `sockaddr` and its length.
    /// Throws `SystemError.pathTooLong` when it does not fit.
    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> R) throws -> R {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        var bytes: [UInt8]
        switch self {
        case .path(let path):
            if path.utf8.contains(0) { throw SystemError.invalidArgument(operation: "socket path", reason: "contains a NUL byte") }
            if path.isEmpty { throw SystemError.invalidArgument(operation: "socket path", reason: "is empty") }
            bytes = Array(path.utf8)
            guard bytes.count <= capacity - 1 else {
                throw SystemError.pathTooLong(path: path, maximum: capacity - 1)
            }
            bytes.append(0)
        case .abstract(let name):
            bytes = [0] + Array(name.utf8)
            guard bytes.count <= capacity else {
                throw SystemError.pathTooLong(path: "@" + name, maximum: capacity - 1)
            }
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let length = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + bytes.count
        return try withUnsafePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, socklen_t(length)) }
        }
    }
}

/// The process on the other end of a connected Unix socket, as the kernel saw it at `connect`.
public struct PeerCredentials: Hashable, Sendable {
    public var processID: Int32
    public var userID: UInt32
    public var groupID: UInt32

    public init(processID: Int32, userID: UInt32, groupID: UInt32) {
        self.processID = processID
        self.userID = userID
        self.groupID = groupID
    }

    public var pid: Int32 { processID }
    public var uid: UInt32 { userID }
    public var gid: UInt32 { groupID }
}

/// Client-side Unix stream sockets and peer credentials.
public enum UnixSocket {
    /// Connects a stream socket (`O_CLOEXEC`) to `address`: blocking, or with `nonBlocking` one that is
    /// `O_NONBLOCK` from the start (a Unix socket's connect then never waits: a full backlog fails with
    /// `Errno.Code.wouldBlock` instead).
    /// Throws `Errno.Code.connectionRefused` (a stale socket file) or `.noSuchFileOrDirectory` (none).
    ///
    /// The corresponding C functions are `socket(2)` and `connect(2)`.
    public static func connect(_ address: UnixSocketAddress, nonBlocking: Bool = false) throws -> FileDescriptor {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        let fd = FileDescriptor(rawValue: try valueOrErrno("socket(AF_UNIX, SOCK_STREAM)") {
            socket(AF_UNIX, type, 0)
        })
        do {
            try address.withSockaddr { pointer, length in
                // EINTR during connect leaves the connection in progress; retrying then fails with
                // EALREADY, so a blocking connect is retried only in the EINTR-free common case.
                _ = try valueOrErrno("connect(\(address))") { Glibc.connect(fd.rawValue, pointer, length) }
            }
        } catch {
            try? fd.close()
            throw error
        }
        return fd
    }

    /// Connects a blocking stream socket (`O_CLOEXEC`) to the socket file at `path`.
    ///
    /// The corresponding C functions are `socket(2)` and `connect(2)`.
    public static func connect(path: String) throws -> FileDescriptor {
        try connect(.path(path))
    }

    /// Creates a connected pair of stream sockets (both `O_CLOEXEC`), e.g. for tests.
    ///
    /// The corresponding C function is `socketpair(2)`.
    public static func pair(nonBlocking: Bool = false) throws -> (FileDescriptor, FileDescriptor) {
        var fds: [Int32] = [-1, -1]
        var type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        if nonBlocking { type |= Int32(SOCK_NONBLOCK.rawValue) }
        _ = try valueOrErrno("socketpair(AF_UNIX)") { socketpair(AF_UNIX, type, 0, &fds) }
        return (FileDescriptor(rawValue: fds[0]), FileDescriptor(rawValue: fds[1]))
    }

    /// Shuts down writing (the peer reads end of file) while still allowing reads.
    ///
    /// The corresponding C function is `shutdown(2)` with `SHUT_WR`.
    public static func shutdownWriting(_ fd: FileDescriptor) throws {
        _ = try valueOrErrno("shutdown(\(fd.rawValue), SHUT_WR)") { shutdown(fd.rawValue, Int32(SHUT_WR)) }
    }
}

/// The credentials of the process connected to `fd`, a Unix stream socket.
///
/// The corresponding C function is `getsockopt(2)` with `SO_PEERCRED`.
public func peerCredentials(of fd: FileDescriptor) throws -> PeerCredentials {
    // struct ucred { pid_t pid; uid_t uid; gid_t gid; } — Glibc hides it behind _GNU_SOURCE.
    var fields: (Int32, UInt32, UInt32) = (0, 0, 0)
    var length = socklen_t(GNUExtensions.ucredSize)
    _ = try valueOrErrno("getsockopt(\(fd.rawValue), SO_PEERCRED)") {
        getsockopt(fd.rawValue, SOL_SOCKET, SO_PEERCRED, &fields, &length)
    }
    return PeerCredentials(processID: fields.0, userID: fields.1, groupID: fields.2)
}

/// A listening Unix stream socket that owns its socket file.
///
/// It is non-blocking and `O_CLOEXEC`; so is every connection it accepts. Close it with `close()`,
/// which also removes the socket file if it is still the one this listener created.
public struct UnixListener: Hashable, Sendable {
    public let fileDescriptor: FileDescriptor
    public let path: String
    private let device: UInt64
    private let inode: UInt64
    /// Whether `close()` removes the socket file: not for a socket a service manager passed, whose file
    /// is the manager's (it listens on it again once we are gone).
    public let ownsSocketFile: Bool

    /// Listens on `path`.
    ///
    /// If a socket file already exists there: when something accepts a connection on it, another
    /// daemon is live and this throws `Errno.Code.addressInUse`; when nothing does (a stale file
    /// left by a crash) it is removed and replaced. Anything at `path` that is not a socket is left
    /// alone and reported as `.addressInUse` too. The new socket file gets mode 0600. A path longer
    /// than `sun_path` throws `SystemError.pathTooLong`.
    ///
    /// The corresponding C functions are `socket(2)`, `connect(2)`, `unlink(2)`, `bind(2)`,
    /// `chmod(2)` and `listen(2)`.
    public init(path: String, backlog: Int32 = 64) throws {
        let address = UnixSocketAddress.path(path)
        try address.withSockaddr { _, _ in }  // Reject a bad path before touching anything.

        if let existing = try? FileSystem.status(path, followSymbolicLinks: false) {
            guard existing.kind == .socket else {
                throw Errno(.addressInUse, operation: "listen(\(path)): a file that is not a socket is in the way")
            }
            do {
                let probe = try UnixSocket.connect(address)
                try? probe.close()
                throw Errno(.addressInUse, operation: "listen(\(path)): another process is already listening")
            } catch Errno.Code.connectionRefused {
                try FileSystem.removeFile(path, ignoreMissing: true)
            } catch Errno.Code.noSuchFileOrDirectory {
                // Gone in the meantime; nothing to remove.
            }
        }

        let fd = FileDescriptor(rawValue: try valueOrErrno("socket(AF_UNIX, SOCK_STREAM)") {
            socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        })
        do {
            try address.withSockaddr { pointer, length in
                _ = try valueOrErrno("bind(\(path))") { bind(fd.rawValue, pointer, length) }
            }
            // The socket file exists from bind until this chmod with the umask's mode; callers keep it
            // in a 0700 directory, so nobody else can reach it in between.
            try FileSystem.setPermissions(path, .ownerReadWrite)
            _ = try valueOrErrno("listen(\(path))") { listen(fd.rawValue, backlog) }
            let status = try FileSystem.status(path, followSymbolicLinks: false)
            self.device = status.device
            self.inode = status.inode
        } catch {
            try? fd.close()
            if let status = try? FileSystem.status(path, followSymbolicLinks: false), status.kind == .socket {
                try? FileSystem.removeFile(path)
            }
            throw error
        }
        self.fileDescriptor = fd
        self.path = path
        ownsSocketFile = true
    }

    /// Takes over a listening socket that was passed to this process (`SocketActivation`): it must be a
    /// Unix stream socket that listens; it is made non-blocking (and is `O_CLOEXEC` already). `path` is
    /// the file it is bound to (empty for an unnamed or abstract one). Its file is left in place by
    /// `close()`.
    ///
    /// The corresponding C functions are `getsockopt(2)` (`SO_DOMAIN`, `SO_TYPE`, `SO_ACCEPTCONN`),
    /// `getsockname(2)` and `fcntl(2)`.
    public init(adopting fd: FileDescriptor) throws {
        func option(_ name: Int32, _ what: String) throws -> Int32 {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = try valueOrErrno("getsockopt(\(fd.rawValue), \(what))") { getsockopt(fd.rawValue, SOL_SOCKET, name, &value, &length) }
            return value
        }
        let isSocket = (try? fd.status().kind) == .socket
        guard isSocket, try option(SO_DOMAIN, "SO_DOMAIN") == AF_UNIX, try option(SO_TYPE, "SO_TYPE") == Int32(SOCK_STREAM.rawValue),
              try option(SO_ACCEPTCONN, "SO_ACCEPTCONN") == 1 else {
            throw SystemError.invalidArgument(operation: "descriptor \(fd.rawValue)", reason: "is not a listening Unix stream socket")
        }
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        _ = try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                try valueOrErrno("getsockname(\(fd.rawValue))") { getsockname(fd.rawValue, raw, &length) }
            }
        }
        let pathLength = Int(length) - MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)!
        let bytes = withUnsafeBytes(of: address.sun_path) { Array($0.prefix(max(0, pathLength))) }
        path = bytes.first == 0 ? "" : String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        try fd.setNonBlocking(true)
        let status = path.isEmpty ? nil : try? FileSystem.status(path, followSymbolicLinks: false)
        device = status?.device ?? 0
        inode = status?.inode ?? 0
        fileDescriptor = fd
        ownsSocketFile = false
    }

    /// Accepts one pending connection: a non-blocking, `O_CLOEXEC` descriptor, or nil when none is
    /// waiting (`EAGAIN`, or a client that gave up before being accepted).
    ///
    /// The corresponding C function is `accept4(2)`.
    public func accept() throws -> FileDescriptor? {
        do {
            let raw = try retryingInterrupts("accept(\(path))") {
                GNUExtensions.accept4(fileDescriptor.rawValue, nil, nil, Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue))
            }
            return FileDescriptor(rawValue: raw)
        } catch let error as Errno where error.code == .wouldBlock || error.code.rawValue == ECONNABORTED {
            return nil
        }
    }

    /// Closes the socket and removes the socket file, unless another process has since replaced it or the
    /// socket was passed to us (`init(adopting:)`).
    ///
    /// The corresponding C functions are `close(2)` and `unlink(2)`.
    public func close() throws {
        defer {
            if ownsSocketFile, let status = try? FileSystem.status(path, followSymbolicLinks: false),
               status.device == device, status.inode == inode {
                try? FileSystem.removeFile(path)
            }
        }
        try fileDescriptor.close()
    }
}

/// A Unix datagram socket: what `sd_notify` speaks. Tests use it to stand in for systemd.
public struct UnixDatagramSocket: Hashable, Sendable {
    public let fileDescriptor: FileDescriptor

    /// An unbound datagram socket (`O_CLOEXEC`) for sending.
    ///
    /// The corresponding C function is `socket(2)` with `SOCK_DGRAM`.
    public init() throws {
        fileDescriptor = FileDescriptor(rawValue: try valueOrErrno("socket(AF_UNIX, SOCK_DGRAM)") {
            socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        })
    }

    /// A datagram socket bound to `address` (`O_CLOEXEC`, non-blocking) for receiving.
    ///
    /// The corresponding C functions are `socket(2)` and `bind(2)`.
    public static func bound(to address: UnixSocketAddress) throws -> UnixDatagramSocket {
        let socket = try UnixDatagramSocket()
        do {
            try address.withSockaddr { pointer, length in
                _ = try valueOrErrno("bind(\(address))") { bind(socket.fileDescriptor.rawValue, pointer, length) }
            }
            try socket.fileDescriptor.setNonBlocking(true)
        } catch {
            try? socket.close()
            throw error
        }
        return socket
    }

    /// Sends `bytes` as one datagram to `address`, without raising `SIGPIPE`.
    ///
    /// The corresponding C function is `sendto(2)`.
    public func send(_ bytes: [UInt8], to address: UnixSocketAddress) throws {
        try address.withSockaddr { pointer, length in
            let sent = try retryingInterrupts("sendto(\(address))") {
                bytes.withUnsafeBytes { buffer in
                    sendto(fileDescriptor.rawValue, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), pointer, length)
                }
            }
            if sent != bytes.count {
                throw SystemError.invalidArgument(operation: "sendto(\(address))", reason: "sent \(sent) of \(bytes.count) bytes")
            }
        }
    }

    /// Receives one datagram of at most `maximumLength` bytes (longer ones are cut), or nil when
    /// none is waiting.
    ///
    /// The corresponding C function is `recv(2)`.
    public func receive(maximumLength: Int = 65536) throws -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: maximumLength)
        do {
            let count = try retryingInterrupts("recv(\(fileDescriptor.rawValue))") {
                buffer.withUnsafeMutableBytes { recv(fileDescriptor.rawValue, $0.baseAddress, $0.count, 0) }
            }
            return Array(buffer[0..<count])
        } catch Errno.Code.wouldBlock {
            return nil
        }
    }

    /// Closes the socket (a bound path stays; remove it with `FileSystem.removeFile`).
    ///
    /// The corresponding C function is `close(2)`.
    public func close() throws {
        try fileDescriptor.close()
    }
}
