// SPDX-License-Identifier: Apache-2.0
import XTypes

/// Answers SelectionRequests for a selection the caller owns, per ICCCM 2.2–2.6, as a pure function.
///
/// The responder handles the protocol targets itself (`TARGETS`, `TIMESTAMP`, `MULTIPLE`), refuses
/// side-effect targets, substitutes the target for a `None` property (obsolete clients), and decides when
/// data goes by INCR. Content targets are converted by the caller's `convert` closure, which is called at
/// most once per target and request.
///
/// A request is answered whatever its time, as long as the caller still owns the selection (the caller
/// asks only then: a request that arrives once another client took the selection is refused before it
/// gets here). ICCCM 2.2 lets an owner refuse a request timed before it acquired the selection, so that a
/// requestor never gets content newer than the moment it asked about; for a clipboard that newer content
/// is the content the requestor wants, and real requestors send old times: Emacs reading the clipboard
/// from a timer or `emacsclient --eval` sends its last input event's time, older than a copy made since
/// in another application. GTK and xclip owners answer such requests; so does this one.
public struct SelectionResponder: Sendable {
    public var atoms: StandardAtoms
    /// Format-8 values larger than this many bytes are sent by INCR.
    public var incrThreshold: Int
    /// The size of each INCR chunk.
    public var chunkSize: Int
    /// The most (target, property) pairs one MULTIPLE request may list.
    public var maximumMultiplePairs: Int

    public init(atoms: StandardAtoms, incrThreshold: Int, chunkSize: Int, maximumMultiplePairs: Int = 4096) {
        precondition(incrThreshold > 0 && chunkSize > 0, "INCR sizes must be positive")
        self.atoms = atoms
        self.incrThreshold = incrThreshold
        self.chunkSize = chunkSize
        self.maximumMultiplePairs = maximumMultiplePairs
    }

    /// The sizes to use given the server's maximum request length in bytes (BIG-REQUESTS extended if
    /// available): 1 MiB chunks, or less when the server takes less (leaving room for the
    /// ChangeProperty request header). Measured on Xvfb, 4,000,000-byte chunks cost the server thousands
    /// of page faults per 64 MiB paste and no chunk at all over 1 MiB; xsel 1.2 hangs above 4,000,000.
    public static func sizes(maximumRequestBytes: Int) -> (incrThreshold: Int, chunkSize: Int) {
        let usable = max(maximumRequestBytes - 1024, 4096)
        let chunk = min(usable, 1 << 20)
        return (chunk, chunk)
    }

    /// The ATOM list a TARGETS request gets: the protocol targets, then `offered` without duplicates.
    public func targetsList(offered: [Atom]) -> [Atom] {
        var seen: Set<Atom> = []
        var list: [Atom] = []
        for atom in [atoms.targets, atoms.timestamp, atoms.multiple] + offered where !atom.isNone {
            if seen.insert(atom).inserted { list.append(atom) }
        }
        return list
    }

    /// Plans the answer to `request`, for a selection the caller owns now.
    /// - Parameters:
    ///   - acquiredAt: the server time at which the caller took ownership (what TIMESTAMP answers; not
    ///     compared with the request's time).
    ///   - offered: the content targets served, in preference order.
    ///   - listed: the targets TARGETS lists (nil: `offered`); a target may be served without being listed
    ///     (made only when a requestor asks for it by name).
    ///   - multiplePairs: for a MULTIPLE request, the ATOM_PAIR list read from the requestor's property
    ///     (nil if it could not be read); ignored otherwise.
    ///   - convert: produces a content target's value, or nil to refuse it.
    public func plan(
        for request: SelectionRequest,
        acquiredAt: Timestamp,
        offered: [Atom],
        listed: [Atom]? = nil,
        multiplePairs: [Atom]?,
        convert: (Atom) -> PropertyValue?
    ) -> ReplyPlan {
        var plan = ReplyPlan()
        if request.target == atoms.multiple {
            // Each target is converted once per request, however many pairs name it.
            var converted: [Atom: PropertyValue?] = [:]
            let once: (Atom) -> PropertyValue? = { target in
                if let done = converted[target] { return done }
                let value = convert(target)
                converted[target] = .some(value)
                return value
            }
            planMultiple(request, acquiredAt: acquiredAt, offered: offered, listed: listed ?? offered, pairs: multiplePairs,
                         convert: once, into: &plan)
            return plan
        }
        let property = request.property.isNone ? request.target : request.property
        if appendAnswer(target: request.target, property: property, requestor: request.requestor,
                        acquiredAt: acquiredAt, offered: offered, listed: listed ?? offered, convert: convert, into: &plan) {
            plan.notifyProperty = property
        }
        return plan
    }

    private func planMultiple(
        _ request: SelectionRequest, acquiredAt: Timestamp, offered: [Atom], listed: [Atom], pairs: [Atom]?,
        convert: (Atom) -> PropertyValue?, into plan: inout ReplyPlan
    ) {
        guard !request.property.isNone, let pairs, !pairs.isEmpty, pairs.count % 2 == 0 else {
            plan.refusals.append(.malformedMultiple)
            return
        }
        guard pairs.count / 2 <= maximumMultiplePairs else {
            plan.refusals.append(.tooManyPairs(pairs.count / 2))
            return
        }
        var result = pairs
        var anyFailed = false
        for index in stride(from: 0, to: pairs.count, by: 2) {
            let target = pairs[index]
            let property = pairs[index + 1]
            let ok: Bool
            if target == atoms.multiple {
                plan.refusals.append(.nestedMultiple)
                ok = false
            } else if property.isNone {
                plan.refusals.append(.malformedMultiple)
                ok = false
            } else {
                ok = appendAnswer(target: target, property: property, requestor: request.requestor,
                                  acquiredAt: acquiredAt, offered: offered, listed: listed, convert: convert, into: &plan)
            }
            if !ok {
                result[index + 1] = .none
                anyFailed = true
            }
        }
        if anyFailed {
            plan.writes.append(PropertyWrite(
                property: request.property,
                value: PropertyValue(type: atoms.atomPair, longs: result.map(\.rawValue))))
        }
        plan.notifyProperty = request.property
    }

    /// Appends the writes (and transfer) answering one target; false if refused.
    private func appendAnswer(
        target: Atom, property: Atom, requestor: WindowID, acquiredAt: Timestamp, offered: [Atom], listed: [Atom],
        convert: (Atom) -> PropertyValue?, into plan: inout ReplyPlan
    ) -> Bool {
        let value: PropertyValue
        if target == atoms.targets {
            value = PropertyValue(type: atoms.atom, longs: targetsList(offered: listed).map(\.rawValue))
        } else if target == atoms.timestamp {
            value = PropertyValue(type: atoms.integer, longs: [acquiredAt.rawValue])
        } else if atoms.sideEffectTargets.contains(target) {
            plan.refusals.append(.sideEffectTarget(target))
            return false
        } else if offered.contains(target), let converted = convert(target) {
            value = converted
        } else {
            plan.refusals.append(.targetNotOffered(target))
            return false
        }
        // A value still arriving goes by INCR whatever its size so far: its end is not known yet.
        if value.byteCount > incrThreshold || !value.isFinal {
            let payload: IncrSend.Payload
            switch value.items {
            case .bytes(let bytes): payload = .bytes(bytes)
            case .source(let source): payload = .source(source)
            case .shorts, .longs:
                plan.refusals.append(.tooLargeForOneRequest(target))
                return false
            }
            let transfer = IncrSend(key: TransferKey(requestor: requestor, property: property),
                                    type: value.type, payload: payload, chunkSize: chunkSize)
            plan.writes.append(PropertyWrite(property: property, value: transfer.header(incrAtom: atoms.incr)))
            plan.transfers.append(transfer)
        } else if let inMemory = try? value.inMemory() {
            // A small value from a source is read now and written whole.
            plan.writes.append(PropertyWrite(property: property, value: inMemory))
        } else {
            plan.refusals.append(.unreadableSource(target))
            return false
        }
        return true
    }
}
