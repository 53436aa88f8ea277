// SPDX-License-Identifier: Apache-2.0
import DaemonCore
import PasteboardCore
import SystemSupport

// pasteboardd: parse argv, run the daemon in the foreground, exit with its status.
switch DaemonOptions.parse(Array(CommandLine.arguments.dropFirst())) {
case .success(.help):
    try? FileDescriptor.standardOutput.writeAll(Array((DaemonOptions.usage + "\n").utf8))
    ProcessIdentity.exit(0)
case .success(.version):
    try? FileDescriptor.standardOutput.writeAll(Array("pasteboardd \(PasteboardVersion.string)\n".utf8))
    ProcessIdentity.exit(0)
case .failure(let error):
    try? FileDescriptor.standardError.writeAll(Array("pasteboardd: \(error.message)\n".utf8))
    ProcessIdentity.exit(64)
case .success(.checkConfig):
    do {
        _ = try DaemonConfiguration.load(environment: Environment.all)
        try? FileDescriptor.standardOutput.writeAll(Array("pasteboardd: configuration is valid\n".utf8))
        ProcessIdentity.exit(0)
    } catch {
        try? FileDescriptor.standardError.writeAll(Array("pasteboardd: \(error)\n".utf8))
        ProcessIdentity.exit(1)
    }
case .success(.run(let options)):
    // Large content and transfer buffers are mappings of their own, given back when freed (MemoryRelease).
    MemoryRelease.holdLargeBlocksApart()
    if options.autostart, case .notNeeded(let reason) = Autostart.verdict(environment: Environment.all) {
        try? FileDescriptor.standardError.writeAll(Array("pasteboardd: not started: \(reason)\n".utf8))
        ProcessIdentity.exit(0)
    }
    let configuration: DaemonConfiguration
    do { configuration = try DaemonConfiguration.load(environment: Environment.all) } catch {
        // Said to the pb that woke it, too, when a service manager passed the control socket.
        ProcessIdentity.exit(Daemon(options: options, environment: Environment.all).refuseToStart(StartFailure("\(error)")))
    }
    ProcessIdentity.exit(Daemon(options: options, environment: Environment.all, configuration: configuration).run())
}
