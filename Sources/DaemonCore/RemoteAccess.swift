// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import PasteboardCore
import SystemSupport

/// What a client of the remote socket (`$XDG_RUNTIME_DIR/pasteboard/remote.sock`, the one meant to be forwarded
/// over SSH: docs/remote.md) may do, as pure decisions the control server and the engine carry out.
///
/// - Requests: copy (`setItems`, `setExpiringItems`, `addItems`, `clear`), paste (`read`, `items`), `targets`,
///   `changeCount` and `watch`, of any pasteboard, and the peering handshake (`peer`: a daemon at the other end
///   shares the pasteboard, docs/remote.md); every other kind (history, pause/resume, pasteboard
///   create/remove/list, status) is answered `denied` and the connection stays open.
/// - Content: what was copied with `--sensitive` or `--local-only`, or that its application marked secret
///   (`SnapshotPolicy.secretMarkers`), is never served: a paste of it is answered `denied` with the reason, and
///   a `changed` event about it carries no types and no picture, with the state `sensitive`.
/// - Rate: each client may send `requestsPerSecond` requests a second on average, in bursts of twice that
///   (`RequestRate`); one over is answered `unavailable` and not carried out.
public struct RemoteAccess: Sendable {
    /// The request kinds served through the remote socket. One table: a new kind is added here or refused.
    public static let permittedKinds: Set<ControlRequest.Kind> = [
        .hello, .setItems, .setExpiringItems, .addItems, .clear, .changeCount, .items, .read, .targets, .watch, .watchEvents, .peer,
        .beginCopy, .copyChunk, .commitCopy,
    ]

    /// What a request costs of the allowance, in millionths of a request: one, except a copy's chunks and its
    /// commit, which cost a 64th each — a copy in pieces costs about one request (its `beginCopy`), while a
    /// stream of tiny chunks is still bounded (64 times the rate, each at most `ControlLimits.maximumChunkBytes`).
    public static func cost(of kind: ControlRequest.Kind) -> Int64 {
        kind == .copyChunk || kind == .commitCopy ? 1_000_000 / 64 : 1_000_000
    }

    /// Requests per second allowed on average for each client; bursts of twice that.
    public var requestsPerSecond: Int

    public init(requestsPerSecond: Int = 200) {
        precondition(requestsPerSecond > 0, "a rate of at least one request a second")
        self.requestsPerSecond = requestsPerSecond
    }

    /// A fresh allowance for a new client: a full burst.
    public func newRate(now: MonotonicInstant) -> RequestRate {
        RequestRate(perSecond: requestsPerSecond, burst: 2 * requestsPerSecond, now: now)
    }

    /// The answer that refuses `request` from a remote client whose allowance is `rate` at `now` — a kind
    /// not served here, or one request too many — or nil when it is served. Every request costs the allowance
    /// (`cost(of:)`).
    public func screen(_ request: ControlRequest, rate: inout RequestRate, now: MonotonicInstant) -> ControlResponse? {
        guard rate.take(now: now, cost: Self.cost(of: request.kind)) else {
            return .error(code: .unavailable,
                          message: "too many requests through the remote socket (at most \(requestsPerSecond) a second); try again")
        }
        guard Self.permittedKinds.contains(request.kind) else {
            return .error(code: .denied,
                          message: "\(Self.commandName(request.kind)) is not available through the remote socket, which serves copy, paste, types, count and watch")
        }
        return nil
    }

    /// Why `content` is never served to a remote client, or nil when it may be.
    public static func withholding(_ content: PasteboardContent) -> String? {
        if content.isSensitive { return "was copied with --sensitive" }
        if content.isLocalOnly { return "was copied with --local-only" }
        let types = Set(content.types.map(\.rawValue))
        if !types.isDisjoint(with: SnapshotPolicy.concealedMarkers) { return "was marked secret by the application that copied it" }
        if types.contains(SnapshotPolicy.passwordManagerHint),
           SnapshotPolicy.isSecretHint(content.data(for: PasteboardType(SnapshotPolicy.passwordManagerHint)) ?? []) {
            return "was marked secret by the application that copied it"
        }
        return nil
    }

    /// Why what `served` holds is withheld from remote clients, if it is: its content's reasons, or — for a
    /// change served on behalf of another display, whose bytes are not here — what its origin offered: a
    /// concealed marker, or KDE's password-manager hint (its value unread, it is taken as secret).
    static func withholding(_ served: ServedContent) -> String? {
        if let reason = withholding(served.content) { return reason }
        let remote = Set(served.remote?.types.map(\.rawValue) ?? [])
        if !remote.isDisjoint(with: SnapshotPolicy.concealedMarkers) || remote.contains(SnapshotPolicy.passwordManagerHint) {
            return "was marked secret by the application that copied it"
        }
        return nil
    }

    /// The refusal of a paste of `pasteboard`, whose content is withheld for `reason`.
    public static func refusal(_ pasteboard: PasteboardName, _ reason: String) -> ControlResponse {
        .error(code: .denied, message: "what \(pasteboard) holds \(reason): it is never served through the remote socket")
    }

    /// `event` as a remote watcher sees it: a change to withheld content names no types and no picture and
    /// says `sensitive`; anything else as it is.
    public static func event(_ event: ControlResponse, contentWithheld: Bool) -> ControlResponse {
        guard contentWithheld else { return event }
        switch event {
        case .changed(let pasteboard, let count, _, _, _):
            return .changed(pasteboard: pasteboard, count: count, types: [], state: ChangeState.sensitive.rawValue, image: nil)
        case .change(let change):
            return .change(ChangeEvent(pasteboard: change.pasteboard, count: change.count, types: [],
                                       state: change.state == ChangeState.kept.rawValue ? change.state : ChangeState.sensitive.rawValue))
        default:
            return event
        }
    }

    /// The pb command a request kind stands for, for people.
    static func commandName(_ kind: ControlRequest.Kind) -> String {
        switch kind {
        case .history, .sourcedHistory, .historyItem, .historyCopy, .historyDelete, .historyClear: "the history"
        case .pause, .resume: "pausing and resuming"
        case .createPasteboard, .removePasteboard, .pasteboards: "managing pasteboards"
        case .status: "the status"
        case .displays, .addDisplay, .removeDisplay, .onDisplay: "the displays"
        case .peers, .addPeer, .removePeer: "managing peers"
        default: "\(kind)"
        }
    }
}

/// A token bucket: `burst` requests at once, refilled at `perSecond`; time from the daemon's monotonic clock.
public struct RequestRate: Equatable, Sendable {
    public let perSecond: Int
    public let burst: Int
    /// Allowance in millionths of a request, so that refilling loses nothing between frequent calls.
    private var micros: Int64
    private var last: MonotonicInstant

    public init(perSecond: Int, burst: Int, now: MonotonicInstant) {
        self.perSecond = perSecond
        self.burst = burst
        micros = Int64(burst) * 1_000_000
        last = now
    }

    /// Takes `cost` millionths of a request (one request by default) at `now`; false, taking nothing, when less
    /// than that is left.
    public mutating func take(now: MonotonicInstant, cost: Int64 = 1_000_000) -> Bool {
        if now > last {
            let elapsed = now - last
            var (seconds, attoseconds) = elapsed.components
            seconds = min(seconds, 3600)   // a full burst long before; no overflow after an idle month
            let refill = seconds * Int64(perSecond) * 1_000_000 + attoseconds / 1_000_000_000_000 * Int64(perSecond)
            micros = min(Int64(burst) * 1_000_000, micros + refill)
            last = now
        }
        guard micros >= cost else { return false }
        micros -= cost
        return true
    }
}
