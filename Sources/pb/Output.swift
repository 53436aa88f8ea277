import SystemSupport

/// Writing to standard output and standard error.
enum Output {
    static func write(_ bytes: [UInt8]) throws {
        try FileDescriptor.standardOutput.writeAll(bytes)
    }

    static func line(_ text: String) {
        try? FileDescriptor.standardOutput.writeAll(Array((text + "\n").utf8))
    }

    static func error(_ text: String) {
        try? FileDescriptor.standardError.writeAll(Array((text + "\n").utf8))
    }
}

extension Signals {
    /// A closed pipe on standard output ends pb with EPIPE errors rather than SIGPIPE.
    static func ignoreBrokenPipe() { try? ignore(.pipe) }
}
