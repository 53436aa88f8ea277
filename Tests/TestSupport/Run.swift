import Foundation
import SystemSupport

/// The result of running a program to completion.
public struct RunResult: Sendable {
    public var status: Int32
    public var stdout: [UInt8]
    public var stderr: String
    public var text: String { String(decoding: stdout, as: UTF8.self) }
}

/// Runs programs for tests with a given environment, feeding standard input and collecting output.
public struct Runner: Sendable {
    public var environment: [String: String]

    public init(environment: [String: String]) { self.environment = environment }

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

    /// Starts `executable` in the background; the caller stops it by PID.
    public func start(_ executable: String, _ arguments: [String], stdin: [UInt8]? = nil) throws -> Process {
        let process = Process()
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
