// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import SystemSupport
import WaylandClient

/// Reads a Wayland seat's selection and primary selection as a data-control client (`WaylandConnection`), blocking
/// the calling thread with deadlines: what the library does without pasteboardd on a Wayland session, as
/// `SelectionReader` does on X (wl-paste's way, without its focus-stealing fallback).
///
/// - The current offer and its MIME types come from the compositor's events; every call first makes a round trip
///   (`sync`), so what it answers is the seat as it is now, not as it was when the connection was made.
/// - A type is read through a pipe the compositor hands to the copying client, without blocking, for at most
///   `timeout` between two chunks and `transferBudgetInTimeouts` timeouts in all, and at most `cap` bytes. Wayland
///   says no size: a client killed mid-send ends its pipe as one that is done, so a read is whole only if its offer
///   is still the selection once the compositor has handled what came before (a second `sync`, as the daemon does).
final class WaylandSelectionReader {
    private let connection: WaylandConnection
    /// The compositor's socket, for messages.
    let socket: String
    /// The MIME types each live offer announced (capped: `WaylandTypes.keepsAnnounced`).
    private var offerTypes: [WaylandConnection.OfferID: [String]] = [:]
    /// The current offer of the selection (false) and the primary selection (true); absent or nil when empty.
    private var selections: [Bool: WaylandConnection.OfferID] = [:]
    private var synced: Set<UInt32> = []
    private let clock = SystemClock()
    /// How long one read may last in all, in timeouts (as `SelectionReader.transferBudgetInTimeouts`).
    static let transferBudgetInTimeouts = SelectionReader.transferBudgetInTimeouts

    /// Connects to the compositor at `socket` (a name under `$XDG_RUNTIME_DIR`, or a path). Throws `.display` when it
    /// cannot be reached or offers no data-control protocol (GNOME's mutter, weston).
    init(socket: String) throws(PasteboardError) {
        self.socket = socket
        do { connection = try WaylandConnection(name: socket) } catch {
            throw .display("cannot reach the Wayland compositor at \(socket): \(error)")
        }
        guard connection.dataControl != nil else {
            throw .display("the Wayland compositor at \(socket) offers no data-control protocol (ext-data-control-v1, "
                + "wlr-data-control): its selection cannot be read by pb without pasteboardd")
        }
        handle(connection.takeEvents())
    }

    /// Whether the seat has a primary selection (not with wlr-data-control version 1).
    var hasPrimarySelection: Bool { connection.dataControl?.hasPrimarySelection == true }

    /// The MIME types of the current offer, as its client listed them (the daemon's marker left out). Throws `.empty`
    /// when nobody holds the selection.
    func types(primary: Bool, timeoutMilliseconds: Int) throws(PasteboardError) -> [String] {
        let offer = try currentOffer(primary: primary, timeoutMilliseconds: timeoutMilliseconds)
        return (offerTypes[offer] ?? []).filter { $0 != WaylandTypes.ownMarker }
    }

    /// The bytes the current offer's client sends for `mimeType` (one it listed). Throws `.empty` without an offer,
    /// `.timedOut` when the client sends nothing for `timeoutMilliseconds` (or stops sending that long, or sends
    /// for more than `transferBudgetInTimeouts` of them), `.refused` over `cap` bytes or when the selection changed
    /// or its client went away before it was done.
    func read(_ mimeType: String, primary: Bool, timeoutMilliseconds: Int, cap: Int) throws(PasteboardError) -> [UInt8] {
        let offer = try currentOffer(primary: primary, timeoutMilliseconds: timeoutMilliseconds)
        let pipe: (readEnd: FileDescriptor, writeEnd: FileDescriptor)
        do { pipe = try FileDescriptor.pipe(nonBlocking: true) } catch { throw .refused("cannot make a pipe: \(error)") }
        defer { try? pipe.readEnd.close() }
        let asked = connection.receive(offer, mimeType: mimeType, into: pipe.writeEnd.rawValue)
        try? pipe.writeEnd.close()   // the compositor passed its own copy on
        guard asked else { throw .refused("the Wayland offer went away before it could be read") }
        try flush()
        let timeout = Duration.milliseconds(timeoutMilliseconds)
        let started = clock.now()
        let budget = started + timeout * Self.transferBudgetInTimeouts
        var deadline = started + timeout
        var bytes: [UInt8] = []
        reading: while true {
            let now = clock.now()
            guard now < min(deadline, budget) else { throw .timedOut }
            let requests = [PollRequest(pipe.readEnd, .readable), PollRequest(FileDescriptor(rawValue: connection.descriptor), .readable)]
            let ready: [PollEvents]
            do { ready = try Poller.wait(requests, timeoutMilliseconds: now.millisecondsUntil(min(deadline, budget))) } catch {
                throw .refused("cannot wait for the Wayland client: \(error)")
            }
            if let events = ready.last, !events.isEmpty { try readEvents() }
            guard let events = ready.first, !events.isEmpty else { continue }
            while true {
                let result: FileDescriptor.ReadResult
                do { result = try pipe.readEnd.readAvailable(max: 1 << 20) } catch {
                    throw .refused("cannot read from the Wayland client: \(error)")
                }
                switch result {
                case .data(let chunk):
                    guard bytes.count + chunk.count <= cap else { throw .refused("the data is larger than \(cap) bytes") }
                    bytes += chunk
                    deadline = clock.now() + timeout
                case .wouldBlock: continue reading
                case .endOfFile: break reading
                }
            }
        }
        // Whole only if the offer still stands once the compositor has handled what came before the end: two round
        // trips, as the daemon's seat makes (the first may be answered in the same turn as, but before, the
        // copier's hangup).
        try roundTrip(timeoutMilliseconds: timeoutMilliseconds)
        try roundTrip(timeoutMilliseconds: timeoutMilliseconds)
        guard selections[primary] == offer else {
            throw .refused("the Wayland client that copied it went away, or the selection changed, while it was read")
        }
        return bytes
    }

    /// The selection's offer after a round trip; `.empty` when there is none.
    private func currentOffer(primary: Bool, timeoutMilliseconds: Int) throws(PasteboardError) -> WaylandConnection.OfferID {
        try roundTrip(timeoutMilliseconds: timeoutMilliseconds)
        guard let offer = selections[primary] else { throw .empty }
        return offer
    }

    /// Asks the compositor to sync and handles its events until it answers (at most `timeoutMilliseconds`).
    private func roundTrip(timeoutMilliseconds: Int) throws(PasteboardError) {
        guard let token = connection.sync() else { throw .display("the Wayland compositor at \(socket) did not take a request") }
        try flush()
        let deadline = clock.now() + .milliseconds(timeoutMilliseconds)
        while !synced.contains(token) {
            let now = clock.now()
            guard now < deadline else { throw .display("the Wayland compositor at \(socket) did not answer in time") }
            let ready: PollEvents
            do {
                ready = try Poller.wait(PollRequest(FileDescriptor(rawValue: connection.descriptor), .readable),
                                        timeoutMilliseconds: now.millisecondsUntil(deadline))
            } catch {
                throw .display("cannot wait for the Wayland compositor: \(error)")
            }
            if !ready.isEmpty { try readEvents() }
        }
        synced.remove(token)
    }

    private func readEvents() throws(PasteboardError) {
        do { handle(try connection.read()) } catch { throw .display("the Wayland compositor at \(socket): \(error)") }
    }

    private func flush() throws(PasteboardError) {
        do { try connection.flush() } catch { throw .display("\(error)") }
    }

    private func handle(_ events: [WaylandConnection.Event]) {
        for event in events {
            switch event {
            case .offer(let offer): offerTypes[offer] = []
            case .offerType(let offer, let type):
                if let kept = offerTypes[offer], WaylandTypes.keepsAnnounced(type, after: kept.count) { offerTypes[offer]!.append(type) }
            case .selection(let offer, let primary):
                let previous = selections[primary]
                selections[primary] = offer
                if let previous, previous != offer, !selections.values.contains(previous) {
                    connection.destroy(previous)
                    offerTypes[previous] = nil
                }
            case .synced(let token): synced.insert(token)
            case .send(_, _, let fd): _ = try? FileDescriptor(rawValue: fd).close()   // no source of ours: never asked
            case .finished: selections = [:]   // the seat went away: nothing to read
            case .cancelled: continue
            }
        }
    }
}
