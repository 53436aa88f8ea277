// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import PasteboardCore

/// Errors the library throws, each saying what failed.
public enum PasteboardError: Error, Equatable, Sendable, CustomStringConvertible {
    /// pasteboardd is not running, or not serving — it could not start, and the message is its reason
    /// ("pasteboardd could not start: DISPLAY is not set (…)") — (writes, counts and change notifications
    /// need it).
    case daemonNotRunning(String)
    /// The pasteboard has no owner.
    case empty
    /// Nothing the owner offers is, or converts to, the type.
    case typeNotPresent(PasteboardType)
    /// The owner or the daemon did not answer in time.
    case timedOut
    /// The X display could not be opened or was lost.
    case display(String)
    /// No such named pasteboard (and `create` was false).
    case noSuchPasteboard(String)
    /// pasteboardd does not hold the pasteboard's content (another application owns it, or nobody).
    case notHeld(String)
    /// The type could be made but converting to it failed; the reason says why (malformed input, a limit).
    case conversionFailed(String)
    /// The owner broke the protocol: answered with another type than asked, or a malformed transfer.
    case badReply(String)
    /// The daemon refused the request.
    case refused(String)

    public var description: String {
        switch self {
        case .daemonNotRunning(let why): why
        case .empty: "the pasteboard is empty"
        case .typeNotPresent(let type): "the pasteboard does not offer \(type), nor anything that converts to it"
        case .timedOut: "timed out"
        case .display(let why): why
        case .noSuchPasteboard(let name): "no pasteboard named \(name)"
        case .notHeld(let why): why
        case .conversionFailed(let why): why
        case .badReply(let why): why
        case .refused(let why): why
        }
    }

    static func translate(_ error: any Error) -> PasteboardError {
        switch error {
        case let error as PasteboardError: return error
        case DaemonClientError.notRunning, DaemonClientError.notServing, DaemonClientError.forwardNotAnswering:
            return .daemonNotRunning("\(error)")
        case DaemonClientError.timedOut: return .timedOut
        case let DaemonClientError.daemon(code, message):
            switch code {
            case .notFound: return .notHeld(message)
            case .typeNotOffered: return .refused(message)
            case .conversionFailed: return .conversionFailed(message)
            case .timedOut: return .timedOut
            default: return .refused(message)
            }
        case SelectionReadError.empty: return .empty
        case SelectionReadError.timedOut: return .timedOut
        case SelectionReadError.connectionLost: return .display("the X connection was lost")
        case SelectionReadError.malformedTransfer(let why): return .badReply("the owner sent a malformed transfer: \(why)")
        default: return .refused("\(error)")
        }
    }
}
