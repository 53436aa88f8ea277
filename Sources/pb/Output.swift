// SPDX-License-Identifier: Apache-2.0
import SystemSupport

/// Writing to standard output and standard error.
enum Output {
    static func write(_ bytes: [UInt8]) throws {
        try FileDescriptor.standardOutput.writeAll(bytes)
    }

    static func line(_ text: String) {
        try? FileDescriptor.standardOutput.writeAll(Array((text + "\n").utf8))
    }

    /// Writes `text` and a newline to standard error, after ending a progress line being drawn there.
    static func error(_ text: String) {
        ProgressDisplay.active?.finish()
        try? FileDescriptor.standardError.writeAll(Array((text + "\n").utf8))
    }
}

extension Signals {
    /// A closed pipe on standard output ends pb with EPIPE errors rather than SIGPIPE.
    static func ignoreBrokenPipe() { try? ignore(.pipe) }
}

/// `bytes` without one trailing newline (LF or CRLF), as `-n` asks.
func trimmingOneNewline(_ bytes: [UInt8]) -> [UInt8] {
    if bytes.last == 0x0A {
        return Array(bytes.dropLast(bytes.count >= 2 && bytes[bytes.count - 2] == 0x0D ? 2 : 1))
    }
    return bytes
}

/// Standard output for data that arrives in pieces. With `trimmingNewline`, the last two bytes are held
/// back until `finish()`, so that one trailing newline (LF or CRLF) is left out as `pb paste -n` does
/// for a whole value. After a failed write, `error` says why and nothing more is written.
struct StreamingOutput {
    let trimmingNewline: Bool
    private var held: [UInt8] = []
    private(set) var error: String?

    init(trimmingNewline: Bool) {
        self.trimmingNewline = trimmingNewline
    }

    /// Writes `chunk` (minus what is held back); false once a write has failed.
    mutating func write(_ chunk: ArraySlice<UInt8>) -> Bool {
        guard error == nil else { return false }
        do {
            if !trimmingNewline {
                try chunk.withUnsafeBytes { try FileDescriptor.standardOutput.writeAll($0) }
                return true
            }
            let all = held + chunk
            let keep = min(2, all.count)
            try Output.write(Array(all.dropLast(keep)))
            held = Array(all.suffix(keep))
            return true
        } catch {
            self.error = "\(error)"
            return false
        }
    }

    /// Writes what was held back, without one trailing newline; false if any write failed.
    mutating func finish() -> Bool {
        guard error == nil else { return false }
        guard trimmingNewline else { return true }
        do { try Output.write(trimmingOneNewline(held)) } catch { self.error = "\(error)" }
        held = []
        return error == nil
    }
}
