// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import PasteboardCore
import SystemSupport

/// One connection's copy sent in pieces — `beginCopy`, `copyChunk`s, `commitCopy` (docs/protocol.md, "A copy
/// in pieces") — as decisions the control server carries out: the transfer record.
///
/// Contract: nothing of an open copy is served or counted before its commit, which turns it into the `setItems`
/// (or `setExpiringItems`) it stands for, handed to the engine like any request; a copy given up — the connection
/// dropped, a failure, a new `beginCopy`, the deadline — leaves no trace but the memory it frees. The bytes held
/// are capped by `maximumBytes`, counted as the `setItems` frame body the copy stands for would be, so a copy in
/// pieces can be exactly as large as a whole one and no larger. An open copy has exactly one answer after the
/// `ok` to its begin: the commit's `changeCount`, or the first failure's `error` (sent at once; the chunks and
/// the commit still on their way are then taken silently).
public struct CopyTransfer {
    /// What the server does with a request, once the copy has seen it.
    public enum Step: Equatable {
        /// Not part of a copy: hand it out as usual.
        case pass
        /// Answer this now (the `ok` to a begin, a failure).
        case answer(ControlResponse)
        /// Nothing to answer (a chunk taken, or one of a failed copy's stragglers).
        case taken
        /// The committed copy, as the request it stands for: hand it out (the engine answers it).
        case commit(ControlRequest)
    }

    /// The bytes of an open copy, by representation: a class, so that appending a chunk never copies them.
    final class Receiving {
        let pasteboard: String
        let types: [String]
        let options: CopyOptions
        let expiresAfterMilliseconds: UInt64
        var data: [[UInt8]]
        let began: MonotonicInstant
        /// Chunk bytes received so far.
        var received = 0
        /// The length of the `setItems` body the copy stands for without its data.
        let headerBytes: Int
        /// The length of the `setItems` body the copy stands for, so far.
        var frameBytes: Int { headerBytes + received }

        init(pasteboard: String, types: [String], options: CopyOptions, expiresAfterMilliseconds: UInt64, began: MonotonicInstant) {
            self.pasteboard = pasteboard
            self.types = types
            self.options = options
            self.expiresAfterMilliseconds = expiresAfterMilliseconds
            self.began = began
            data = Array(repeating: [], count: types.count)
            // version, kind, the name, one item's count and its representations' count, each type and data
            // length, the options, and the expiry when there is one.
            headerBytes = 3 + 4 + pasteboard.utf8.count + 4 + 4 + types.reduce(0) { $0 + 8 + $1.utf8.count } + 4
                + (expiresAfterMilliseconds == 0 ? 0 : 8)
        }
    }

    enum Phase {
        case idle
        case open(Receiving)
        /// Answered with an error: its remaining chunks and its commit are taken silently.
        case failed
    }

    /// The largest frame body the connection takes: an open copy may stand for a `setItems` this large.
    public let maximumBytes: Int
    private(set) var phase: Phase = .idle

    public init(maximumBytes: Int) {
        self.maximumBytes = maximumBytes
    }

    /// Whether a copy is open (begun, not committed, not failed).
    public var isOpen: Bool {
        if case .open = phase { return true }
        return false
    }

    /// Bytes of the open copy received so far (0 when none is open).
    public var receivedBytes: Int {
        if case .open(let copy) = phase { return copy.received }
        return 0
    }

    /// Takes `request` at `now`: what to do with it.
    public mutating func take(_ request: ControlRequest, now: MonotonicInstant) -> Step {
        switch request {
        case .beginCopy(let pasteboard, let types, let options, let milliseconds):
            if isOpen {
                phase = .idle
                return .answer(.error(code: .badRequest, message: "a copy was already open on this connection: both were given up, nothing was copied"))
            }
            let copy = Receiving(pasteboard: pasteboard, types: types, options: options, expiresAfterMilliseconds: milliseconds, began: now)
            if let failure = overCap(copy.frameBytes) { return fail(failure) }
            phase = .open(copy)
            return .answer(.ok)
        case .copyChunk(let index, let data):
            switch phase {
            case .idle: return .answer(.error(code: .badRequest, message: "no copy is open on this connection (beginCopy first)"))
            case .failed: return .taken
            case .open(let copy):
                guard Int(index) < copy.types.count else {
                    return fail(.error(code: .badRequest, message: "copyChunk.representation \(index) is not one of the copy's \(copy.types.count) types: nothing was copied"))
                }
                if let failure = overCap(copy.frameBytes + data.count) { return fail(failure) }
                copy.received += data.count
                copy.data[Int(index)].append(contentsOf: data)
                return .taken
            }
        case .commitCopy:
            switch phase {
            case .idle: return .answer(.error(code: .badRequest, message: "no copy is open on this connection (beginCopy first)"))
            case .failed:
                phase = .idle
                return .taken
            case .open(let copy):
                phase = .idle
                let (item, _) = PasteboardItem.keeping(zip(copy.types, copy.data).map { Representation(type: PasteboardType($0), data: $1) })
                guard let item else { return .answer(.error(code: .badRequest, message: "nothing of the copy can be kept")) }
                copy.data = []
                if copy.expiresAfterMilliseconds == 0 {
                    return .commit(.setItems(pasteboard: copy.pasteboard, items: [item], options: copy.options))
                }
                return .commit(.setExpiringItems(pasteboard: copy.pasteboard, items: [item], options: copy.options,
                                                 expiresAfterMilliseconds: copy.expiresAfterMilliseconds))
            }
        default:
            return .pass
        }
    }

    /// `request`, a part of a copy, was refused before it was taken (`refusal`: the remote socket's rate): an open
    /// copy fails with it as its answer; a failed copy's straggler is taken silently. Nil: send nothing.
    public mutating func refused(_ request: ControlRequest, with refusal: ControlResponse) -> ControlResponse? {
        switch (request.kind, phase) {
        case (.copyChunk, .open), (.commitCopy, .open):
            phase = .failed
            return refusal
        case (.copyChunk, .failed): return nil
        case (.commitCopy, .failed):
            phase = .idle
            return nil
        default: return refusal
        }
    }

    /// When the open copy is given up if nothing more comes: `idleTimeout` after its begin, plus a second for each
    /// `allowance` bytes of it that came (`received`, what is still in a partial frame included) — a copy that
    /// keeps moving at `allowance` bytes a second or more goes on; nil when none is open.
    public func deadline(idleTimeout: Duration, allowance: Int, pendingBytes: Int = 0) -> MonotonicInstant? {
        guard case .open(let copy) = phase else { return nil }
        return copy.began + idleTimeout + .seconds((copy.received + pendingBytes) / allowance)
    }

    /// Gives up the open copy (its deadline passed): the answer to send, nil when none was open.
    public mutating func expire() -> ControlResponse? {
        guard case .open(let copy) = phase else { return nil }
        phase = .idle
        return .error(code: .timedOut, message: "the copy to \(copy.pasteboard) stalled (\(copy.received) bytes came): nothing was copied")
    }

    private mutating func fail(_ response: ControlResponse) -> Step {
        phase = .failed
        return .answer(response)
    }

    private func overCap(_ bytes: Int) -> ControlResponse? {
        guard bytes > maximumBytes else { return nil }
        return .error(code: .tooLarge, message: "the copy is over the largest request the daemon takes (\(maximumBytes) bytes): nothing was copied")
    }
}
