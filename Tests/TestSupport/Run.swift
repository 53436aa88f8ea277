// SPDX-License-Identifier: Apache-2.0
import Foundation
import SystemSupport

/// The result of running a program to completion.
public struct RunResult: Sendable {
    public var status: Int32
    public var stdout: [UInt8]
    public var stderr: String
    public var text: String { String(decoding: stdout, as: UTF8.self) }

    public init(status: Int32, stdout: [UInt8], stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }
}

/// Runs programs for tests with a given environment, feeding standard input and collecting output.
public struct Runner: Sendable {
    public var environment: [String: String]

    public init(environment: [String: String]) {
        self.environment = environment
        // A program that exits before reading all its input must give the writer EPIPE, not kill the
        // test process with SIGPIPE.
        try? Signals.ignore(.pipe)
    }

    /// Runs `executable` with `arguments`, writing `input` to its standard input, and waits (at most
    /// `timeout` seconds, then it is killed by PID and the result says so with status -9).
    @discardableResult
    public func run(_ executable: String, _ arguments: [String], input: [UInt8] = [], timeout: Double = 30) throws -> RunResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : (Tools.path(of: executable) ?? executable))
        process.arguments = arguments
        process.environment = environment
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        // Feed and drain concurrently so large data in either direction cannot deadlock.
        let writer = Thread {
            try? FileDescriptor(rawValue: stdin.fileHandleForWriting.fileDescriptor).writeAll(input)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let errBox = DataBox()
        let errDone = DispatchGroup()
        errDone.enter()
        DispatchQueue.global().async {
            errBox.data = stderr.fileHandleForReading.readDataToEndOfFile()
            errDone.leave()
        }
        let killer = DispatchWorkItem { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        killer.cancel()
        errDone.wait()
        let status = process.terminationReason == .uncaughtSignal ? -process.terminationStatus : process.terminationStatus
        return RunResult(status: status, stdout: Array(out), stderr: String(decoding: errBox.data ?? Data(), as: UTF8.self))
    }

    /// Starts `executable` in the background; the caller stops it by PID. Its standard error goes to the file
    /// at `stderrPath` when given (else it is the test's).
    public func start(_ executable: String, _ arguments: [String], stdin: [UInt8]? = nil, stderrPath: String? = nil) throws -> Process {
        let process = Process()
        if let stderrPath { process.standardError = FileHandle(forWritingAtPath: stderrPath) }
        process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : (Tools.path(of: executable) ?? executable))
        process.arguments = arguments
        process.environment = environment
        if let stdin {
            let pipe = Pipe()
            process.standardInput = pipe
            try process.run()
            try FileDescriptor(rawValue: pipe.fileHandleForWriting.fileDescriptor).writeAll(stdin)
            try pipe.fileHandleForWriting.close()
            return process
        }
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        try process.run()
        return process
    }
}

final class DataBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Data?
    var data: Data? {
        get { lock.lock(); defer { lock.unlock() }; return value }
        set { lock.lock(); value = newValue; lock.unlock() }
    }
}

/// Reads what a child process prints, line by line, without Foundation's `availableData` (which
/// returns an empty Data when a signal such as SIGCHLD interrupts its read, as if the pipe had closed).
public final class LineReader: @unchecked Sendable {
    private let fd: FileDescriptor
    private var buffer: [UInt8] = []

    public init(_ handle: FileHandle) {
        fd = FileDescriptor(rawValue: handle.fileDescriptor)
    }

    /// The next line without its newline; nil at end of file or after `timeout` seconds.
    public func line(timeout: Double = 10) throws -> String? {
        let clock = SystemClock()
        let deadline = clock.now() + .milliseconds(Int64(timeout * 1000))
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let now = clock.now()
            guard now < deadline else { return nil }
            let ready = try Poller.wait([PollRequest(fd, .readable)], timeoutMilliseconds: now.millisecondsUntil(deadline))
            guard !ready[0].isEmpty else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = try chunk.withUnsafeMutableBytes { try fd.read(into: $0) }
            if n == 0 { return buffer.isEmpty ? nil : String(decoding: buffer, as: UTF8.self) }
            buffer += chunk[..<n]
        }
    }
}
