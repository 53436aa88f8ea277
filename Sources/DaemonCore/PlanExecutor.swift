// SPDX-License-Identifier: Apache-2.0
import Selection
import XTypes

/// Carries out what `SelectionResponder` plans, for every selection the daemon answers (pasteboards, the
/// clipboard manager selection): writes the properties, starts the INCR transfers, sends the one
/// SelectionNotify, labelling the serials so an X error is traced to the requestor.
final class PlanExecutor {
    private let x: any XDisplay
    let ownerWindow: WindowID
    let responder: SelectionResponder
    let serials: SerialLabels
    let transfers: IncrTransfers
    private let log: Logger

    init(x: any XDisplay, ownerWindow: WindowID, serials: SerialLabels, transfers: IncrTransfers, log: Logger) {
        self.x = x
        self.ownerWindow = ownerWindow
        self.serials = serials
        self.transfers = transfers
        self.log = log
        let sizes = SelectionResponder.sizes(maximumRequestBytes: x.maximumRequestBytes)
        responder = SelectionResponder(atoms: x.atoms, incrThreshold: sizes.incrThreshold, chunkSize: sizes.chunkSize)
    }

    /// Writes `plan`'s properties, begins its transfers and notifies the requestor.
    func execute(_ plan: ReplyPlan, for request: SelectionRequest) {
        serials.label(.reply(requestor: request.requestor))
        for write in plan.writes { x.changeProperty(request.requestor, write.property, write.value) }
        for transfer in plan.transfers { transfers.begin(transfer) }
        serials.label(.reply(requestor: request.requestor))
        x.sendSelectionNotify(requestor: request.requestor, selection: request.selection, target: request.target,
                              property: plan.notifyProperty, time: request.time)
    }

    /// Refuses `request` (property None), so the requestor does not wait.
    func refuse(_ request: SelectionRequest) {
        execute(ReplyPlan(), for: request)
    }

    /// Answers a request for a selection that is not a pasteboard (the manager selection) with the
    /// protocol targets plus `offered`, converting them with `convert`.
    func answer(_ request: SelectionRequest, acquiredAt: Timestamp, offered: [Atom], convert: (Atom) -> PropertyValue?) {
        let plan = responder.plan(for: request, acquiredAt: acquiredAt, offered: offered, multiplePairs: nil, convert: convert)
        execute(plan, for: request)
    }

    /// Writes a side-effect target's reply (a zero-length NULL property, ICCCM 2.6.3) and notifies.
    func acknowledge(_ request: SelectionRequest, property: Atom) {
        serials.label(.reply(requestor: request.requestor))
        x.changeProperty(request.requestor, property, PropertyValue(type: x.atoms.null, bytes: []))
        x.sendSelectionNotify(requestor: request.requestor, selection: request.selection, target: request.target,
                              property: property, time: request.time)
    }

    /// Logs why a request was refused, never content. A malformed or oversized MULTIPLE is a peer breaking
    /// the protocol or the daemon's cap: one info line per request (rate-limited). Other refusals (targets
    /// not offered, side effects) are ordinary client behaviour: debug only.
    /// `pairsOverCap` is the pair count of a MULTIPLE list too long to read (more than the cap).
    func logRefusals(of plan: ReplyPlan, for request: SelectionRequest, pairsOverCap: Int?) {
        let multipleRefusals = plan.refusals.filter {
            if case .tooManyPairs = $0 { return true }
            return $0 == .malformedMultiple || $0 == .nestedMultiple
        }
        if plan.isRefused, !multipleRefusals.isEmpty, let pairsOverCap {
            log.limited(.info, key: "multiple-over-cap", "refused a MULTIPLE request from \(request.requestor): \(pairsOverCap) pairs, over the cap of \(responder.maximumMultiplePairs)")
        } else if plan.isRefused, !multipleRefusals.isEmpty {
            log.limited(.info, key: "multiple-malformed", "refused a MULTIPLE request from \(request.requestor): no property, or no readable list of ATOM_PAIRs (format 32, an even number of atoms)")
        } else if !multipleRefusals.isEmpty {
            log.limited(.info, key: "multiple-malformed", "refused \(multipleRefusals.count) pairs of a MULTIPLE request from \(request.requestor): MULTIPLE inside MULTIPLE, or a pair without a property")
        }
        for refusal in plan.refusals where !multipleRefusals.contains(refusal) {
            log.limited(.debug, key: "refusal", "refused a request: \(refusal)")
        }
    }
}
