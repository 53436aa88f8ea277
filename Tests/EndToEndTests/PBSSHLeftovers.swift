// SPDX-License-Identifier: Apache-2.0
import Foundation
import XCTest

/// A process found in /proc: its PID and its command line.
struct ProcessEntry: CustomStringConvertible {
    let processID: Int32
    let commandLine: [String]

    var description: String { "\(processID): \(commandLine.joined(separator: " "))" }

    /// Every process whose command line has an argument containing `text`, read from /proc now.
    static func all(mentioning text: String) -> [ProcessEntry] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { name in
            guard let processID = Int32(name), let data = FileManager.default.contents(atPath: "/proc/\(name)/cmdline") else { return nil }
            let arguments = Self.arguments(data)
            return arguments.contains { $0.contains(text) } ? ProcessEntry(processID: processID, commandLine: arguments) : nil
        }
    }

    /// Whether this process still runs with the same command line (not ended — a zombie has none — nor its PID
    /// taken by another).
    var isRunning: Bool {
        FileManager.default.contents(atPath: "/proc/\(processID)/cmdline").map(Self.arguments) == commandLine
    }

    /// /proc/PID/cmdline's NUL-separated arguments (empty ones left out).
    static func arguments(_ data: Data) -> [String] {
        data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }
}

/// What one `pb ssh` session, named by its `LC_PASTEBOARD_SESSION`, makes: its socket on the host, the control
/// socket of its master connection here, and the processes that name that control socket — the master, the
/// watcher (`pb ssh-cleanup`) and the session's own ssh.
struct PBSSHSession {
    let session: String
    /// Home's `$XDG_RUNTIME_DIR/pasteboard`.
    let runtime: String

    var hostSocket: String { "/tmp/pasteboard-ssh-\(session).sock" }
    var controlSocket: String { runtime + "/ssh-" + session.prefix(8) }
    var processes: [ProcessEntry] { ProcessEntry.all(mentioning: controlSocket) }
    var master: ProcessEntry? { processes.first { $0.commandLine.starts(with: ["ssh", "-f", "-N", "-M", "-S", controlSocket]) } }
    var watcher: ProcessEntry? { processes.first { $0.commandLine.starts(with: ["pb", "ssh-cleanup"]) } }

    /// Its socket on the host, its control socket and every process of it that remain.
    var leftovers: [String] {
        [hostSocket, controlSocket].filter { FileManager.default.fileExists(atPath: $0) } + processes.map(\.description)
    }
}

extension DesktopTestCase {
    /// Home's `$XDG_RUNTIME_DIR/pasteboard`, where pb ssh makes its control sockets.
    var pasteboardRuntime: String { desktop.environment["XDG_RUNTIME_DIR"]! + "/pasteboard" }

    /// `session` of this desktop's pb ssh.
    func sshSession(_ session: String) -> PBSSHSession {
        PBSSHSession(session: session.trimmingCharacters(in: .whitespacesAndNewlines), runtime: pasteboardRuntime)
    }

    /// Every process of any pb ssh session of this desktop (naming a control socket in its runtime directory).
    var sshProcesses: [ProcessEntry] { ProcessEntry.all(mentioning: pasteboardRuntime + "/ssh-") }

    /// Waits (at most 10 s) until `session` has left nothing behind, and says what it left if it did.
    func assertLeavesNothing(_ session: PBSSHSession, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(10)
        while !session.leftovers.isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        XCTAssertEqual(session.leftovers, [], "\(what): what the session \(session.session) left after 10 s", file: file, line: line)
    }
}
