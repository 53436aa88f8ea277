// SPDX-License-Identifier: Apache-2.0
import CSystemShims
import Glibc

/// How a child process ended.
public enum ExitStatus: Hashable, Sendable, CustomStringConvertible {
    /// It called `exit` with this code.
    case exited(Int32)
    /// A signal killed it.
    case signaled(Signal)

    /// Decodes a `waitpid` status word (`WIFEXITED`, `WEXITSTATUS`, `WTERMSIG` are macros Swift
    /// cannot import; this is their Linux definition).
    init?(waitStatus status: Int32) {
        let low = status & 0x7f
        if low == 0 {
            self = .exited((status >> 8) & 0xff)
        } else if low != 0x7f {
            self = .signaled(Signal(rawValue: low))
        } else {
            return nil  // Stopped or continued: not an end.
        }
    }

    public var description: String {
        switch self {
        case .exited(let code): return "exited with status \(code)"
        case .signaled(let signal): return "killed by \(signal)"
        }
    }
}

/// Starting and reaping child processes (for `pb watch`, which runs a command per change).
public enum ChildProcess {
    /// Starts `argv[0]`, searched in `$PATH`, with arguments `argv` — or the file at `executable` when given
    /// (`argv[0]` is then only the name it is run by).
    ///
    /// `environment` nil passes ours on. When `stdin`/`stdout`/`stderr` are given they become the child's
    /// descriptors 0/1/2. The child starts with an empty signal mask and default dispositions, whatever
    /// this process blocked or ignored. Only descriptors without `O_CLOEXEC` are inherited (which in
    /// this code base means only 0, 1 and 2). `newSession` makes it the leader of a session of its own,
    /// without a controlling terminal: the terminal's signals and hangup never reach it.
    ///
    /// The corresponding C functions are `posix_spawnp(3)` and `posix_spawn(3)`, with `POSIX_SPAWN_SETSID`
    /// for `newSession`.
    public static func spawn(argv: [String], executable: String? = nil, environment: [String: String]? = nil, stdin: FileDescriptor? = nil,
                             stdout: FileDescriptor? = nil, stderr: FileDescriptor? = nil, newSession: Bool = false) throws -> Int32 {
        precondition(!argv.isEmpty, "ChildProcess.spawn needs at least the program name")
        var actions = posix_spawn_file_actions_t()
        try zeroOrErrorNumber("posix_spawn_file_actions_init") { posix_spawn_file_actions_init(&actions) }
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin {
            try zeroOrErrorNumber("posix_spawn_file_actions_adddup2") { posix_spawn_file_actions_adddup2(&actions, stdin.rawValue, 0) }
        }
        if let stdout {
            try zeroOrErrorNumber("posix_spawn_file_actions_adddup2") { posix_spawn_file_actions_adddup2(&actions, stdout.rawValue, 1) }
        }
        if let stderr {
            try zeroOrErrorNumber("posix_spawn_file_actions_adddup2") { posix_spawn_file_actions_adddup2(&actions, stderr.rawValue, 2) }
        }

        var attributes = posix_spawnattr_t()
        try zeroOrErrorNumber("posix_spawnattr_init") { posix_spawnattr_init(&attributes) }
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        var allSignals = sigset_t()
        sigemptyset(&allSignals)
        for number in 1..<32 where number != SIGKILL && number != SIGSTOP {
            sigaddset(&allSignals, Int32(number))
        }
        try zeroOrErrorNumber("posix_spawnattr_setsigmask") { posix_spawnattr_setsigmask(&attributes, &emptyMask) }
        try zeroOrErrorNumber("posix_spawnattr_setsigdefault") { posix_spawnattr_setsigdefault(&attributes, &allSignals) }
        try zeroOrErrorNumber("posix_spawnattr_setflags") {
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF) | (newSession ? pbs_posix_spawn_setsid() : 0))
        }

        for value in argv + (environment.map { Array($0.keys) + Array($0.values) } ?? []) where value.utf8.contains(0) {
            throw SystemError.invalidArgument(operation: "posix_spawnp(\(argv[0]))", reason: "an argument or variable contains a NUL byte")
        }
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        let cEnvironment: [UnsafeMutablePointer<CChar>?]? = environment.map { variables in
            variables.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { for pointer in cEnvironment ?? [] { free(pointer) } }

        var processID: pid_t = 0
        let start = executable == nil ? posix_spawnp : posix_spawn
        try zeroOrErrorNumber(executable.map { "posix_spawn(\($0))" } ?? "posix_spawnp(\(argv[0]))") {
            cArguments.withUnsafeBufferPointer { arguments in
                if let cEnvironment {
                    return cEnvironment.withUnsafeBufferPointer { variables in
                        start(&processID, executable ?? argv[0], &actions, &attributes, arguments.baseAddress!, variables.baseAddress!)
                    }
                }
                return start(&processID, executable ?? argv[0], &actions, &attributes, arguments.baseAddress!, environ)
            }
        }
        return processID
    }

    /// Waits for child `processID` to end and reaps it.
    ///
    /// The corresponding C function is `waitpid(2)`.
    public static func wait(_ processID: Int32) throws -> ExitStatus {
        while true {
            var status: Int32 = 0
            _ = try retryingInterrupts("waitpid(\(processID))") { waitpid(processID, &status, 0) }
            if let exit = ExitStatus(waitStatus: status) { return exit }
        }
    }

    /// Waits at most `timeoutMilliseconds` for child `processID` to end, and reaps it if it has: nil when it still
    /// runs at the deadline (it is left running, not reaped). Blocks in `poll` on a descriptor of the process,
    /// not in a loop of naps.
    ///
    /// The corresponding C functions are `pidfd_open(2)`, `poll(2)` and `waitpid(2)`.
    public static func wait(_ processID: Int32, timeoutMilliseconds: Int) throws -> ExitStatus? {
        let raw = try valueOrErrno("pidfd_open(\(processID))") { pbs_pidfd_open(processID) }
        let process = FileDescriptor(rawValue: raw)
        defer { try? process.close() }
        let clock = SystemClock()
        let deadline = clock.now() + .milliseconds(max(timeoutMilliseconds, 0))
        while true {
            // Readable once it has ended; poll returns early on EINTR, so the time left is counted again.
            let left = clock.now().millisecondsUntil(deadline)
            if !(try Poller.wait(PollRequest(process, .readable), timeoutMilliseconds: left)).isEmpty { return try wait(processID) }
            if left == 0 { return nil }
        }
    }

    /// Reaps one child that has ended, without blocking: nil when none has (or there are no children).
    /// Call it until nil after each `SIGCHLD`.
    ///
    /// The corresponding C function is `waitpid(2)` with `WNOHANG`.
    public static func reapAny() throws -> (processID: Int32, status: ExitStatus)? {
        while true {
            var status: Int32 = 0
            let processID: Int32
            do {
                processID = try retryingInterrupts("waitpid(-1, WNOHANG)") { waitpid(-1, &status, WNOHANG) }
            } catch Errno.Code.noChildProcesses {
                return nil
            }
            if processID == 0 { return nil }
            if let exit = ExitStatus(waitStatus: status) { return (processID, exit) }
        }
    }
}

/// What a program run as a filter (`ChildProcess.run`) printed and how it ended.
public struct FilterResult: Hashable, Sendable {
    public var status: ExitStatus
    public var output: [UInt8]
}

extension ChildProcess {
    /// Runs `argv` (searched in `$PATH`) with `input` on its standard input and returns what it printed on
    /// standard output, feeding and reading at once so that neither side waits for the other (a menu
    /// program may read all its lines before it prints, or print before it reads them all). Its standard
    /// error and controlling terminal are ours. It is waited for as long as it runs (a menu waits for a
    /// person). A program that exits without reading all of `input` is not an error — provided the caller
    /// ignores `SIGPIPE` (`Signals.ignore(.pipe)`, as pb does), so that writing to it fails with `EPIPE`
    /// instead of killing the caller.
    ///
    /// More than `outputLimit` bytes of output stop it (SIGTERM to its PID, then it is reaped) and throw
    /// `SystemError.limitExceeded`.
    ///
    /// The corresponding C functions are `posix_spawnp(3)`, `poll(2)`, `read(2)`, `write(2)` and `waitpid(2)`.
    public static func run(argv: [String], environment: [String: String]? = nil, input: [UInt8], outputLimit: Int) throws -> FilterResult {
        let (stdinRead, stdinWrite) = try FileDescriptor.pipe()
        let stdoutRead: FileDescriptor, stdoutWrite: FileDescriptor
        do { (stdoutRead, stdoutWrite) = try FileDescriptor.pipe() } catch {
            try? stdinRead.close(); try? stdinWrite.close()
            throw error
        }
        let pid: Int32
        do {
            pid = try spawn(argv: argv, environment: environment, stdin: stdinRead, stdout: stdoutWrite)
        } catch {
            for fd in [stdinRead, stdinWrite, stdoutRead, stdoutWrite] { try? fd.close() }
            throw error
        }
        try? stdinRead.close()
        try? stdoutWrite.close()
        var writer: FileDescriptor? = stdinWrite
        defer { try? writer?.close(); try? stdoutRead.close() }
        var written = 0
        var output: [UInt8] = []
        do {
            try stdinWrite.setNonBlocking(true)
            try stdoutRead.setNonBlocking(true)
            if input.isEmpty { try writer?.close(); writer = nil }
            while true {
                var requests = [PollRequest(stdoutRead, .readable)]
                if let writer { requests.append(PollRequest(writer, .writable)) }
                let ready = try Poller.wait(requests, timeoutMilliseconds: nil)
                if let fd = writer, ready.count > 1, !ready[1].isEmpty {
                    do {
                        written += try fd.writeSome(input, from: written)
                    } catch Errno.Code.brokenPipe {
                        written = input.count   // It stopped reading: what it has is all it wants.
                    }
                    if written == input.count { try fd.close(); writer = nil }
                }
                if !ready[0].isEmpty {
                    switch try stdoutRead.readAvailable(max: 65536) {
                    case .data(let bytes):
                        output += bytes
                        if output.count > outputLimit {
                            try? Signals.send(.terminate, to: pid)
                            _ = try? wait(pid)
                            throw SystemError.limitExceeded(operation: "the output of \(argv[0])", limit: outputLimit)
                        }
                    case .wouldBlock: break
                    case .endOfFile: return FilterResult(status: try wait(pid), output: output)
                    }
                }
            }
        } catch let error as SystemError {
            throw error
        } catch {
            // Our side failed (poll, a read): do not leave the program running behind us.
            try? Signals.send(.terminate, to: pid)
            _ = try? wait(pid)
            throw error
        }
    }

    /// Replaces this process with `argv[0]`, searched in `$PATH`, run with `argv` and `environment`: what it
    /// does — its terminal, its signals, its exit status — is then this process's. Returns only by throwing,
    /// when it cannot be run. Signals this process ignores stay ignored (as with any exec): restore them first.
    ///
    /// The corresponding C function is `execve(2)`, after `executablePath` searched `environment`'s `$PATH`.
    public static func replaceProcess(argv: [String], environment: [String: String]) throws -> Never {
        precondition(!argv.isEmpty, "ChildProcess.replaceProcess needs at least the program name")
        for value in argv + Array(environment.keys) + Array(environment.values) where value.utf8.contains(0) {
            throw SystemError.invalidArgument(operation: "execve(\(argv[0]))", reason: "an argument or variable contains a NUL byte")
        }
        guard let path = executablePath(argv[0], searchPath: environment["PATH"]) else {
            throw Errno(.noSuchFileOrDirectory, operation: "\(argv[0]) is not in $PATH; execve")
        }
        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in cArguments { free(pointer) }
            for pointer in cEnvironment { free(pointer) }
        }
        _ = execve(path, cArguments, cEnvironment)
        throw Errno(Errno.Code(rawValue: errno), operation: "execve(\(path))")
    }

    /// The path of the executable `name` would run as: `name` itself when it has a `/`, else the first
    /// executable file of that name in `searchPath` (`$PATH`'s colon-separated directories); nil when none.
    ///
    /// The corresponding C function is `access(2)` with `X_OK`.
    public static func executablePath(_ name: String, searchPath: String?) -> String? {
        func isExecutable(_ path: String) -> Bool {
            (try? FileSystem.status(path).kind) == .regular && access(path, X_OK) == 0
        }
        guard !name.isEmpty, !name.utf8.contains(0) else { return nil }
        if name.contains("/") { return isExecutable(name) ? name : nil }
        for directory in (searchPath ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (directory.isEmpty ? "." : String(directory)) + "/" + name
            if isExecutable(candidate) { return candidate }
        }
        return nil
    }
}
