// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import SystemSupport
import WaylandClient

/// A Wayland seat attached to the engine, through a data-control protocol (`WaylandConnection`): the seat's
/// selection is CLIPBOARD and its primary selection PRIMARY (shared only with `sharePrimary`, as on X).
///
/// - Tokens: another client's selection is an offer whose MIME types arrive at once: they are the token; no
///   byte is read for it. The offer of a source this endpoint set (a mirror) carries `ownMarker` among its
///   types and is never reported (the engine's first loop guard).
/// - Fetching: a type of the current offer is read for another endpoint through a pipe the compositor hands
///   to the copying client, read without blocking the loop, with the engine's deadline and a size cap.
/// - Serving: another endpoint's offer is set as the seat's selection by a source of this endpoint offering
///   its types under MIME names (`WaylandTypes`); a reader's `send` fetches the bytes from the origin and writes
///   them to the reader's pipe without blocking.
///
/// Not yet (issue 22 part 2): reading a copy early and offering it again once its client is gone, history of
/// Wayland copies, derived types offered to Wayland readers.
final class WaylandSeatEndpoint: PasteboardEndpoint {
    let id: EndpointID
    let name: String
    weak var engine: PasteboardEngine?
    /// Tells the watching clients about a change counted on this seat.
    var broadcast: ((PasteboardName, UInt64, ChangeState, [PasteboardType], ImageSummary?) -> Void)?

    private let connection: WaylandConnection
    private let clock: any MonotonicClock
    private let log: Logger
    /// The most bytes one read of another client's selection may bring.
    private let readCap: Int
    private var counts: [PasteboardName: UInt64] = [:]
    private var serial: UInt64 = 0

    /// The MIME types each offer the compositor announced carries, as they arrive.
    private var offerTypes: [WaylandConnection.OfferID: [String]] = [:]
    /// The seat's current foreign selection per pasteboard: the offer, its serial, its types.
    private var current: [PasteboardName: (offer: WaylandConnection.OfferID, serial: UInt64)] = [:]
    /// What this endpoint serves for another, per pasteboard: the offer and the source set for it.
    private var mirrors: [PasteboardName: (offer: Offer, source: WaylandConnection.SourceID)] = [:]

    private var reads: [FileDescriptor: PipeRead] = [:]
    private var writes: [FileDescriptor: PipeWrite] = [:]
    private var flushPending = false

    private struct PipeRead {
        var bytes: [UInt8] = []
        var deadline: MonotonicInstant
        var completion: (FetchResult) -> Void
    }
    private struct PipeWrite {
        var bytes: [UInt8]
        var offset = 0
        var deadline: MonotonicInstant
    }

    /// The MIME type every source of this endpoint offers besides its content's: an offer that carries it is the
    /// daemon's own (a mirror coming back), never another client's copy.
    static let ownMarker = "application/x-pasteboardd-source"

    init(id: EndpointID, name: String, connection: WaylandConnection, clock: any MonotonicClock, log: Logger, readCap: Int) {
        self.id = id
        self.name = name
        self.connection = connection
        self.clock = clock
        self.log = log
        self.readCap = readCap
    }

    private var pasteboards: [PasteboardName] {
        connection.dataControl?.hasPrimarySelection == true ? [.general, .primary] : [.general]
    }

    // MARK: - The loop's side

    /// What to poll: the connection (readable; writable while requests wait), the pipes being read and written.
    var pollRequests: [PollRequest] {
        var requests = [PollRequest(FileDescriptor(rawValue: connection.descriptor), flushPending ? [.readable, .writable] : .readable)]
        requests += reads.keys.sorted { $0.rawValue < $1.rawValue }.map { PollRequest($0, .readable) }
        requests += writes.keys.sorted { $0.rawValue < $1.rawValue }.map { PollRequest($0, .writable) }
        return requests
    }

    /// Handles what `poll` reported for `pollRequests` (in their order). Throws when the compositor is gone.
    func handle(_ ready: [PollEvents], for requests: [PollRequest]) throws(WaylandConnection.ConnectionError) {
        for (request, events) in zip(requests, ready) where !events.isEmpty {
            if request.fileDescriptor.rawValue == connection.descriptor {
                if events.contains(.readable) || events.contains(.hangup) || events.contains(.error) {
                    handle(try connection.read())
                }
            } else if reads[request.fileDescriptor] != nil {
                readMore(request.fileDescriptor)
            } else if writes[request.fileDescriptor] != nil {
                writeMore(request.fileDescriptor)
            }
        }
        flush()
    }

    /// Handles the events queued since the connection was made (the seat's first selections).
    func start() {
        handle(connection.takeEvents())
        flush()
    }

    private func flush() {
        flushPending = !((try? connection.flush()) ?? true)
    }

    var nextDeadline: MonotonicInstant? {
        (reads.values.map(\.deadline) + writes.values.map(\.deadline)).min()
    }

    func expire(now: MonotonicInstant) {
        for (fd, read) in reads.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where read.deadline <= now {
            reads[fd] = nil
            try? fd.close()
            read.completion(.failed("the Wayland client that copied it did not send it in time"))
        }
        for (fd, write) in writes.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where write.deadline <= now {
            writes[fd] = nil
            try? fd.close()
            log.limited(.info, key: "wayland-write", "a Wayland reader stopped reading: dropped its paste")
        }
    }

    // MARK: - The compositor's events

    private func handle(_ events: [WaylandConnection.Event]) {
        for event in events {
            switch event {
            case .offer(let offer): offerTypes[offer] = []
            case .offerType(let offer, let type):
                if offerTypes[offer] != nil, offerTypes[offer]!.count < PasteboardLimits.maximumRepresentationsPerItem * 4 {
                    offerTypes[offer]!.append(type)
                }
            case .selection(let offer, let primary): selectionChanged(primary ? .primary : .general, to: offer)
            case .send(let source, let type, let fd): send(type, from: source, to: FileDescriptor(rawValue: fd))
            case .cancelled(let source): cancelled(source)
            case .finished: log.info("the Wayland seat went away: its selections are no longer served")
            }
        }
    }

    private func selectionChanged(_ name: PasteboardName, to offer: WaylandConnection.OfferID?) {
        if let previous = current.removeValue(forKey: name)?.offer, previous != offer {
            connection.destroy(previous)
            offerTypes[previous] = nil
        }
        guard let offer else {
            // Emptied: the copying client went away (or cleared it). Nothing is kept yet (issue 22 part 2).
            guard mirrors[name] == nil, let engine, pasteboards.contains(name) else { return }
            let count = nextCount(name)
            engine.changed(name, on: id, count: count, .emptied)
            broadcast?(name, count, .empty, [], nil)
            return
        }
        let types = offerTypes[offer] ?? []
        if types.contains(Self.ownMarker) {
            // The daemon's own source, set for another endpoint: not a change of this seat.
            connection.destroy(offer)
            offerTypes[offer] = nil
            return
        }
        guard pasteboards.contains(name), let engine else {
            connection.destroy(offer)
            offerTypes[offer] = nil
            return
        }
        mirrors[name].map { connection.destroy($0.source) }
        mirrors[name] = nil
        serial += 1
        current[name] = (offer, serial)
        let count = nextCount(name)
        let offered = WaylandTypes.pasteboardTypes(fromMIME: types)
        let secret = types.contains { SnapshotPolicy.concealedMarkers.contains($0) }
        engine.changed(name, on: id, count: count, .offered(Offer(pasteboard: name, origin: id, serial: serial, types: offered,
                                                                    isSensitive: secret)))
        broadcast?(name, count, secret ? .sensitive : .foreign, offered, nil)
    }

    private func nextCount(_ name: PasteboardName) -> UInt64 {
        let count = max(counts[name] ?? 0, engine?.counts[name] ?? 0) + 1
        counts[name] = count
        return count
    }

    // MARK: - Fetching for other endpoints

    func fetch(_ pasteboard: PasteboardName, type: PasteboardType, serial: UInt64, completion: @escaping (FetchResult) -> Void) {
        guard let current = current[pasteboard], current.serial == serial else {
            return completion(.failed("\(pasteboard) changed on \(name) meanwhile"))
        }
        let types = offerTypes[current.offer] ?? []
        guard let mime = WaylandTypes.mimeType(for: type, offered: types) else {
            return completion(.failed("\(pasteboard) on \(name) does not offer \(type)"))
        }
        let pipe: (readEnd: FileDescriptor, writeEnd: FileDescriptor)
        do { pipe = try FileDescriptor.pipe(nonBlocking: true) } catch {
            return completion(.failed("cannot make a pipe: \(error)"))
        }
        let asked = connection.receive(current.offer, mimeType: mime, into: pipe.writeEnd.rawValue)
        try? pipe.writeEnd.close()   // the compositor passed its own copy on
        guard asked else {
            try? pipe.readEnd.close()
            return completion(.failed("\(pasteboard) on \(name) is gone"))
        }
        flush()
        let deadline = clock.now() + (engine?.fetchTimeout ?? .seconds(3))
        reads[pipe.readEnd] = PipeRead(deadline: deadline, completion: completion)
    }

    private func readMore(_ fd: FileDescriptor) {
        guard var read = reads[fd] else { return }
        while true {
            switch (try? fd.readAvailable(max: 1 << 20)) ?? .endOfFile {
            case .data(let bytes):
                guard read.bytes.count + bytes.count <= readCap else {
                    reads[fd] = nil
                    try? fd.close()
                    return read.completion(.failed("the copy is larger than the cap of \(readCap) bytes"))
                }
                read.bytes += bytes
            case .wouldBlock:
                reads[fd] = read
                return
            case .endOfFile:
                reads[fd] = nil
                try? fd.close()
                return read.completion(.data(read.bytes))
            }
        }
    }

    // MARK: - Serving other endpoints' changes

    func serve(_ offer: Offer, count: UInt64) {
        adopt(count: count, for: offer.pasteboard)
        guard pasteboards.contains(offer.pasteboard) else { return }
        let types = WaylandTypes.mimeTypes(for: offer.content?.types ?? offer.types)
        guard !types.isEmpty, let source = connection.makeSource(offering: types + [Self.ownMarker]) else { return }
        if let previous = mirrors[offer.pasteboard] { connection.destroy(previous.source) }
        mirrors[offer.pasteboard] = (offer, source)
        if !connection.setSelection(source, primary: offer.pasteboard == .primary) {
            connection.destroy(source)
            mirrors[offer.pasteboard] = nil
        }
        flush()
    }

    func withdraw(_ pasteboard: PasteboardName, count: UInt64) {
        adopt(count: count, for: pasteboard)
        guard let mirror = mirrors.removeValue(forKey: pasteboard) else { return }
        _ = connection.setSelection(nil, primary: pasteboard == .primary)
        connection.destroy(mirror.source)
        flush()
    }

    func adopt(count: UInt64, for pasteboard: PasteboardName) {
        counts[pasteboard] = max(counts[pasteboard] ?? 0, count)
    }

    func keptContent(of pasteboard: PasteboardName) -> PasteboardContent? { nil }

    func replaceContent(of pasteboard: PasteboardName, with content: PasteboardContent) {
        guard var mirror = mirrors[pasteboard], mirror.offer.content != nil else { return }
        mirror.offer.content = content
        mirrors[pasteboard] = mirror
    }

    /// A Wayland reader asks for `mime` of what this endpoint serves: the bytes come from the origin (or the
    /// offer's content) and go to the reader's pipe as it takes them.
    private func send(_ mime: String, from source: WaylandConnection.SourceID, to fd: FileDescriptor) {
        guard let (name, mirror) = mirrors.first(where: { $0.value.source == source }), let engine,
              let type = WaylandTypes.pasteboardType(forMIME: mime, offered: mirror.offer.content?.types ?? mirror.offer.types) else {
            try? fd.close()
            return
        }
        let deliver: (FetchResult) -> Void = { [weak self] result in
            guard let self, case .data(let bytes) = result else {
                try? fd.close()
                return
            }
            self.write(bytes, to: fd)
        }
        if let content = mirror.offer.content {
            deliver(FetchResult(type, of: content, name))
        } else {
            engine.fetch(name, type: type, serial: mirror.offer.serial, origin: mirror.offer.origin, for: id, completion: deliver)
        }
    }

    private func write(_ bytes: [UInt8], to fd: FileDescriptor) {
        guard (try? fd.setNonBlocking()) != nil else {
            try? fd.close()
            return
        }
        writes[fd] = PipeWrite(bytes: bytes, deadline: clock.now() + .seconds(30))
        writeMore(fd)
    }

    private func writeMore(_ fd: FileDescriptor) {
        guard var write = writes[fd] else { return }
        while write.offset < write.bytes.count {
            guard let written = try? fd.writeSome(write.bytes, from: write.offset) else {
                // The reader went away (EPIPE: SIGPIPE is ignored by the daemon) or the pipe broke.
                writes[fd] = nil
                try? fd.close()
                return
            }
            if written == 0 {
                write.deadline = clock.now() + .seconds(30)
                writes[fd] = write
                return
            }
            write.offset += written
        }
        writes[fd] = nil
        try? fd.close()
    }

    private func cancelled(_ source: WaylandConnection.SourceID) {
        connection.destroy(source)
        for (name, mirror) in mirrors where mirror.source == source { mirrors[name] = nil }
    }
}

/// Type names between the engine (X targets and MIME types as their owners offered them) and Wayland (MIME
/// types only): X's text targets (`UTF8_STRING`, `STRING`, `TEXT`, `COMPOUND_TEXT`) are not offered to Wayland
/// readers, whose text is `text/plain;charset=utf-8` (and `text/plain`), made from the X side's UTF-8 text;
/// every other name goes through as it is (`com.apple.flat-rtfd` too: data-control carries any name).
enum WaylandTypes {
    static let xTextTargets: Set<String> = ["UTF8_STRING", "STRING", "TEXT", "COMPOUND_TEXT"]

    /// What a Wayland source offers for `types`, in order, without duplicates.
    static func mimeTypes(for types: [PasteboardType]) -> [String] {
        var names: [String] = []
        func add(_ name: String) { if !names.contains(name) { names.append(name) } }
        for type in types {
            if xTextTargets.contains(type.rawValue) {
                if type.rawValue == "UTF8_STRING" { add("text/plain;charset=utf-8"); add("text/plain") }
            } else {
                add(type.rawValue)
            }
        }
        return names
    }

    /// The type of `types` (the offer served) a Wayland reader asking for `mime` gets.
    static func pasteboardType(forMIME mime: String, offered types: [PasteboardType]) -> PasteboardType? {
        if types.contains(PasteboardType(mime)) { return PasteboardType(mime) }
        if mime == "text/plain;charset=utf-8" || mime == "text/plain", types.contains(.utf8String) { return .utf8String }
        return nil
    }

    /// The engine's types for a Wayland offer's MIME types (the daemon's marker left out).
    static func pasteboardTypes(fromMIME types: [String]) -> [PasteboardType] {
        types.filter { $0 != WaylandSeatEndpoint.ownMarker }.map { PasteboardType($0) }
    }

    /// The MIME type of a Wayland offer to read for `type` asked by another endpoint.
    static func mimeType(for type: PasteboardType, offered types: [String]) -> String? {
        if types.contains(type.rawValue) { return type.rawValue }
        if xTextTargets.contains(type.rawValue) || type == .utf8PlainText {
            return ["text/plain;charset=utf-8", "UTF8_STRING", "text/plain"].first { types.contains($0) }
        }
        return nil
    }
}
