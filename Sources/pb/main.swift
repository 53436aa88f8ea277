import CLISupport
import SystemSupport

// pb, pbcopy and pbpaste: parse argv, run the command, exit with its status.
let arguments = CommandLine.arguments
let programName = String((arguments.first ?? "pb").split(separator: "/").last ?? "pb")
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
