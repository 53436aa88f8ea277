// SPDX-License-Identifier: Apache-2.0
import CLISupport
import Pasteboard
import SystemSupport

extension Runner {
    /// `pb ssh`: becomes ssh (`SSHForward.argv`), with this pasteboardd's remote socket forwarded to a socket of
    /// this session's own on the host and the session named in `LC_PASTEBOARD_SESSION`. Returns only when ssh
    /// cannot be run.
    func ssh(_ arguments: [String]) -> ExitCode {
        var environment = Environment.all
        let session = ForwardedSocket.session(from: (UInt64.random(in: .min ... .max), UInt64.random(in: .min ... .max)))
        environment[ForwardedSocket.sessionVariable] = session
        let local = XDGDirectories(environment: environment).remoteSocket
        if (try? FileSystem.status(local, followSymbolicLinks: false).kind) != .socket {
            Output.error("\(programName): warning: no pasteboardd listens at \(local): pb on the host will find no pasteboard until one does")
        }
        try? Signals.restoreDefault(.pipe)   // ssh's own, as if run directly
        do {
            try ChildProcess.replaceProcess(argv: SSHForward.argv(passing: arguments, session: session, localSocket: local),
                                            environment: environment)
        } catch {
            try? Signals.ignore(.pipe)
            return fail("cannot run ssh: \(error)")
        }
    }
}
