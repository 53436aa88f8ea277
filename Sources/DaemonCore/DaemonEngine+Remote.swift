// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import PasteboardCore

extension DaemonEngine {
    /// Answers `client` with the refusal and returns true when it is remote and `content` of `name` is never served
    /// to remote clients (`RemoteAccess.withholding`); false, answering nothing, otherwise.
    func refusedRemotely(_ content: PasteboardContent, _ name: PasteboardName, _ client: Client) -> Bool {
        guard client.isRemote, let reason = RemoteAccess.withholding(content) else { return false }
        client.send(RemoteAccess.refusal(name, reason))
        return true
    }

    /// The same for what the daemon serves, a change of another display's included.
    func refusedRemotely(_ served: ServedContent, _ name: PasteboardName, _ client: Client) -> Bool {
        guard client.isRemote, let reason = RemoteAccess.withholding(served) else { return false }
        client.send(RemoteAccess.refusal(name, reason))
        return true
    }
}
