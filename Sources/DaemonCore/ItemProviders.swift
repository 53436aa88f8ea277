// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
import PasteboardCore
import SystemSupport

/// Content whose bytes a client provides when a reader first asks (`setItemProviders`, NSPasteboard's lazy
/// data providers): the types are announced at once and served like another endpoint's (`ServedContent`'s
/// remote types, fetched on request and kept for the change); each fetch is a `provide` event to the
/// providing client's connection, answered by `provided` or `provideFailed`.
///
/// Contract: every fetch completes exactly once — with the bytes, with the client's reason, after `timeout`
/// without an answer, or when the session ends (the client went away, or its content was replaced).
final class ProviderSession {
    let client: UInt64
    let pasteboard: PasteboardName
    /// The types of each item, in order.
    let items: [[PasteboardType]]
    /// The change the content is, once the daemon serves it.
    var count: UInt64?
    private let send: (ControlResponse) -> Void
    private let clock: any MonotonicClock
    let timeout: Duration

    private struct Pending {
        var type: PasteboardType
        var deadline: MonotonicInstant
        var completion: (FetchResult) -> Void
    }
    private var pending: [UInt64: Pending] = [:]
    private var lastRequest: UInt64 = 0
    /// What the client provided, by type (the same arrays `ServedContent` keeps).
    private(set) var provided: [PasteboardType: [UInt8]] = [:]
    private(set) var ended = false

    init(client: UInt64, pasteboard: PasteboardName, items: [[PasteboardType]], timeout: Duration, clock: any MonotonicClock,
         send: @escaping (ControlResponse) -> Void) {
        self.client = client
        self.pasteboard = pasteboard
        self.items = items
        self.timeout = timeout
        self.clock = clock
        self.send = send
    }

    /// Every type, in the order of first appearance.
    var types: [PasteboardType] {
        var seen: Set<PasteboardType> = []
        return items.flatMap { $0 }.filter { seen.insert($0).inserted }
    }

    /// Asks the client for `type`; `completion` runs once, on the loop's thread.
    func fetch(_ type: PasteboardType, completion: @escaping (FetchResult) -> Void) {
        if let bytes = provided[type] { return completion(.data(bytes)) }
        guard !ended else { return completion(.failed("the application that copied \(pasteboard) is gone")) }
        lastRequest += 1
        pending[lastRequest] = Pending(type: type, deadline: clock.now() + timeout, completion: completion)
        send(.provide(request: lastRequest, type: type.rawValue))
    }

    /// The client's answer to request `id`; false when no such request waits (answered already, timed out, or
    /// never asked).
    func answer(_ id: UInt64, _ result: FetchResult) -> Bool {
        guard let request = pending.removeValue(forKey: id) else { return false }
        if case .data(let bytes) = result { provided[request.type] = bytes }
        request.completion(result)
        return true
    }

    /// Refuses the requests waiting past their deadline.
    func expire(now: MonotonicInstant) {
        for (id, request) in pending where request.deadline <= now {
            pending[id] = nil
            request.completion(.failed("the application that copied \(pasteboard) did not provide \(request.type) within \(timeout)"))
        }
    }

    var nextDeadline: MonotonicInstant? { pending.values.map(\.deadline).min() }

    /// No more requests: the ones waiting are refused with `reason`.
    func end(_ reason: String) {
        ended = true
        let waiting = pending.sorted { $0.key < $1.key }
        pending = [:]
        for (_, request) in waiting { request.completion(.failed(reason)) }
    }

    /// What stays of `served` — the content served for the session: its flags, who copied it and its own items
    /// (the password-manager hint of a sensitive copy) — once the client is gone: with the items of the types it
    /// provided, in order; nil when it provided none.
    func providedContent(of served: PasteboardContent) -> PasteboardContent? {
        let kept = items.compactMap { types -> PasteboardItem? in
            let representations = types.compactMap { type in provided[type].map { Representation(type: type, data: $0) } }
            return representations.isEmpty ? nil : try? PasteboardItem(representations)
        }
        guard !kept.isEmpty else { return nil }
        // Kept only while served (`served` is transient): it was never written to the disk, and is not now.
        var content = served
        content.items += kept
        return content
    }

    /// Why `types` cannot be announced (one list per item), or nil.
    static func problem(with types: [[String]]) -> String? {
        guard !types.isEmpty else { return "a copy with providers needs at least one item" }
        for (index, item) in types.enumerated() {
            guard !item.isEmpty else { return "item \(index) has no types" }
            guard item.count <= PasteboardLimits.maximumRepresentationsPerItem else {
                return "item \(index) has \(item.count) types, more than \(PasteboardLimits.maximumRepresentationsPerItem)"
            }
            guard Set(item).count == item.count else { return "item \(index) names a type twice" }
            if let bad = item.first(where: { PasteboardType($0).nameProblem != nil }) {
                return "the type name '\(bad.prefix(64))' of item \(index) \(PasteboardType(bad).nameProblem!)"
            }
        }
        return nil
    }
}
