// SPDX-License-Identifier: Apache-2.0
import CLISupport
import SystemSupport

// pb, pbcopy and pbpaste: parse argv, run the command, exit with its status.
let arguments = CommandLine.arguments
let programName = baseName(arguments.first ?? "")
Signals.ignoreBrokenPipe()

let status: ExitCode
do {
    let command = try CommandLineParser.parse(Array(arguments.dropFirst()), programName: programName)
    status = Runner(programName: programName).run(command)
} catch {
    let name = programName == "pb" ? "pb" + (error.command.map { " " + $0 } ?? "") : programName
    Output.error("\(name): \(error.message)")
    if let command = error.command {
        Output.error(Usage.text(for: command == "pbcopy" || command == "pbpaste" ? command : command)
            .split(separator: "\n").prefix(1).joined())
    }
    status = .usage
}
ProcessIdentity.exit(status.rawValue)

/// The last non-empty `/`-separated part of `path` ("pb" when it has none): the name pb was run by. Scanned as
/// bytes rather than split into an array of substrings, at every start.
func baseName(_ path: String) -> String {
    let bytes = path.utf8
    let slash = UInt8(ascii: "/")
    var end = bytes.endIndex
    while end > bytes.startIndex && bytes[bytes.index(before: end)] == slash { end = bytes.index(before: end) }
    var start = end
    while start > bytes.startIndex && bytes[bytes.index(before: start)] != slash { start = bytes.index(before: start) }
    return start == end ? "pb" : String(path[start..<end])
}
