// SPDX-License-Identifier: Apache-2.0
import Glibc

/// GNU/Linux functions that Swift's Glibc module does not import (it is built without `_GNU_SOURCE`),
/// resolved once from the C library with `dlsym(3)` so that no C shim is needed.
///
/// Each entry is a stable glibc symbol with the C signature written next to it. Layouts that the
/// headers hide (`struct ucred`, `struct signalfd_siginfo`) are described where they are read.
enum GNUExtensions {
    /// `int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags)`:
    /// accept with `SOCK_CLOEXEC` / `SOCK_NONBLOCK` applied atomically.
    typealias Accept4 = @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32
    /// `int pipe2(int pipefd[2], int flags)`: a pipe with `O_CLOEXEC` / `O_NONBLOCK` applied atomically.
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>?, Int32) -> Int32
    /// `int signalfd(int fd, const sigset_t *mask, int flags)`: signals as a readable fd.
    typealias SignalFD = @convention(c) (Int32, UnsafePointer<sigset_t>?, Int32) -> Int32

    /// `int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags)`:
    /// rename, with `RENAME_NOREPLACE` refusing to replace what is there.
    typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UInt32) -> Int32

    static let accept4: Accept4 = resolve("accept4", as: Accept4.self)
    static let renameat2: RenameAt2 = resolve("renameat2", as: RenameAt2.self)
    /// `RENAME_NOREPLACE` from `<linux/fs.h>`.
    static let renameNoReplace: UInt32 = 1
    static let pipe2: Pipe2 = resolve("pipe2", as: Pipe2.self)
    static let signalfd: SignalFD = resolve("signalfd", as: SignalFD.self)

    /// `SO_PEERCRED`'s `struct ucred { pid_t pid; uid_t uid; gid_t gid; }`: three 32-bit integers.
    static let ucredSize = 3 * MemoryLayout<Int32>.size
    /// `struct signalfd_siginfo` is 128 bytes; its first field is `uint32_t ssi_signo`.
    static let signalfdSiginfoSize = 128

    private static func resolve<F>(_ name: String, as type: F.Type) -> F {
        // A missing symbol means a C library this module was never meant to run on: our bug, so trap.
        guard let symbol = dlsym(nil, name) else {
            preconditionFailure("glibc does not export \(name)")
        }
        return unsafeBitCast(symbol, to: type)
    }
}
