// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import SystemSupport

/// One endpoint attached to the engine (an X display today; a Wayland seat or a peer daemon are more kinds).
public struct EndpointID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public static func < (a: EndpointID, b: EndpointID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "endpoint \(rawValue)" }
}

/// What an endpoint's side offers for a pasteboard after a change there: the token every other endpoint serves.
struct Offer: Equatable {
    var pasteboard: PasteboardName
    /// The endpoint whose side made the change; the bytes are fetched from it.
    var origin: EndpointID
    /// Increases with every offer of its origin: an offer not newer than the last one seen from the same
    /// origin is stale and dropped.
    var serial: UInt64
    /// The types the origin's owner offers (its own names: X targets on an X display).
    var types: [PasteboardType]
    var isSensitive: Bool = false
    var isLocalOnly: Bool = false
    /// The content, when the origin has its bytes at hand (a pb copy, kept content); nil: each type is
    /// fetched from the origin when a reader asks for it.
    var content: PasteboardContent?

    /// What a side serving it holds: the content with its bytes, or none of them but its flags (the types are
    /// fetched from the origin).
    var servedContent: PasteboardContent {
        content ?? PasteboardContent(items: [], isSensitive: isSensitive, isLocalOnly: isLocalOnly)
    }
}

/// How a fetch of one type from an origin ended.
enum FetchResult: Equatable {
    case data([UInt8])
    /// Why not (never content): the owner refused, timed out, went away, the pasteboard changed.
    case failed(String)
    /// The bytes as they arrive from the live owner (a large value read by INCR): a reader may send them on
    /// as they come (`ArrivingBytes`), or wait for the whole (`whole`).
    case arriving(ArrivingBytes)

    static func == (a: FetchResult, b: FetchResult) -> Bool {
        switch (a, b) {
        case (.data(let x), .data(let y)): x == y
        case (.failed(let x), .failed(let y)): x == y
        case (.arriving(let x), .arriving(let y)): x === y
        default: false
        }
    }

    /// Calls `completion` once with the whole value in memory or why not: at once, or when bytes arriving have
    /// ended (bytes kept in a file are read from it).
    func whole(_ completion: @escaping (FetchResult) -> Void) {
        guard case .arriving(let bytes) = self else { return completion(self) }
        bytes.whenEnded { ended in
            guard case .arriving(let final) = ended else { return completion(ended) }
            do { completion(.data(try final.read(0..<final.count))) } catch { completion(.failed("cannot read it: \(error)")) }
        }
    }

    /// `representation` as a fetch's answer: its bytes, or — kept in a file — the file's bytes as a final source,
    /// read where they are.
    init(_ representation: Representation) {
        self = representation.source == nil ? .data(representation.data) : .arriving(.kept(representation))
    }

    /// `type` of `content`, the content of `pasteboard` (bytes kept in a file stay there: `init(_:)`).
    init(_ type: PasteboardType, of content: PasteboardContent, _ pasteboard: PasteboardName) {
        if let source = content.source(for: type) {
            self = FetchResult(Representation(type: type, source: source))
        } else {
            self = content.data(for: type).map(FetchResult.data) ?? .failed("\(pasteboard) does not offer \(type)")
        }
    }
}

/// Where one endpoint connects to the engine. Every method runs on the loop's thread.
protocol PasteboardEndpoint: AnyObject {
    var id: EndpointID { get }
    /// What users call it (an X display's name).
    var name: String { get }
    /// Serve `offer` on this side, on behalf of its origin, at `count` (adopted as `adopt` does). Must never
    /// report it back as a change of this side (the engine's first loop guard).
    func serve(_ offer: Offer, count: UInt64)
    /// Another side's change left `pasteboard` empty (cleared, or its owner went away and nothing kept it): stop
    /// serving what this side served on that side's behalf, if anything; the count is `count` (adopted).
    func withdraw(_ pasteboard: PasteboardName, count: UInt64)
    /// Another side's change moved `pasteboard`'s count: publish it here (a count never goes back).
    func adopt(count: UInt64, for pasteboard: PasteboardName)
    /// Reads `type` of the content this side offered as `serial`, from its live owner or from the content kept
    /// for it; calls `completion` once, on the loop's thread.
    func fetch(_ pasteboard: PasteboardName, type: PasteboardType, serial: UInt64, completion: @escaping (FetchResult) -> Void)
    /// The bytes this side holds of its own current offer of `pasteboard` (what it read of it, or serves itself),
    /// asked when it is detached: the others keep serving them.
    func keptContent(of pasteboard: PasteboardName) -> PasteboardContent?
    /// The content of the offer this side serves for `pasteboard` on another's behalf is now `content`: the
    /// same, its large representations in a file (`PasteboardEngine.serveFromFile`). Hold and serve that, and
    /// let the bytes in memory go.
    func replaceContent(of pasteboard: PasteboardName, with content: PasteboardContent)
}

/// The one pasteboard across endpoints: which side's content each shared pasteboard holds now (the current
/// offer), one count each, and the traffic between sides — offers passed on to every other side, fetches
/// routed to the origin with a deadline. It knows nothing of X.
///
/// Loop guards, each tested with `FakeEndpoint`: an endpoint never reports the content it serves for another
/// (its contract); an offer not newer than its origin's last is dropped; a fetch is routed only to the origin
/// of the current offer, never back to the side asking, and refused once the pasteboard changed; offers from
/// one endpoint pass a rate valve (a burst, then one per interval, the newest of each pasteboard kept), so
/// two sides that echoed each other could not spin; fetches in flight per asking side are capped.
final class PasteboardEngine {
    /// A change on one side, as its endpoint reports it.
    enum Change: Equatable {
        /// A new owner there (or the daemon itself) offers content.
        case offered(Offer)
        /// Set to nobody on purpose (a clear).
        case cleared
        /// Its owner went away and nothing kept the content.
        case emptied
    }

    /// Offers one endpoint may pass on at once before the valve spaces them out.
    static let offerBurst = 32
    /// The spacing once the burst is spent.
    static let offerInterval: Duration = .milliseconds(50)
    /// Fetches one side may have in flight; more are refused at once.
    static let maximumFetchesInFlight = 64

    private let clock: any MonotonicClock
    private let log: Logger
    /// How long a fetch may take before the reader is refused (shorter than the toolkits' own patience).
    var fetchTimeout: Duration
    /// Which pasteboards are one across endpoints (CLIPBOARD and the named ones; PRIMARY only if shared).
    var isShared: (PasteboardName) -> Bool

    private(set) var endpoints: [EndpointID: any PasteboardEndpoint] = [:]
    /// The current offer of each shared pasteboard (nil: empty, or held by nobody the engine knows).
    private(set) var current: [PasteboardName: Offer] = [:]
    /// Each shared pasteboard's count, the largest any side reported.
    private(set) var counts: [PasteboardName: UInt64] = [:]
    private var lastSerial: [EndpointID: UInt64] = [:]
    private var valves: [EndpointID: Valve] = [:]

    private struct Valve {
        var tokens: Int
        var refillAt: MonotonicInstant
        /// Offers held back, the newest per pasteboard, with the count each came with.
        var held: [PasteboardName: (Offer, UInt64)] = [:]
    }

    private struct Fetch {
        var requester: EndpointID
        var origin: EndpointID
        var deadline: MonotonicInstant
        var completion: (FetchResult) -> Void
    }
    private var fetches: [UInt64: Fetch] = [:]
    private var nextFetch: UInt64 = 1

    init(clock: any MonotonicClock, log: Logger, fetchTimeout: Duration = .seconds(3),
         isShared: @escaping (PasteboardName) -> Bool = { $0 != .primary }) {
        self.clock = clock
        self.log = log
        self.fetchTimeout = fetchTimeout
        self.isShared = isShared
    }

    /// `origin`'s offer `serial` of `name` now has its content in a file (`content`: the same items, types and
    /// sizes, the large bytes left in the file): the engine and every side serving it hold that instead of
    /// the bytes in memory. Nothing happens for an offer that is no longer current.
    func serveFromFile(_ name: PasteboardName, origin: EndpointID, serial: UInt64, _ content: PasteboardContent) {
        guard var offer = current[name], offer.origin == origin, offer.serial == serial,
              let held = offer.content, content.hasSameShape(as: held) else { return }
        offer.content = content
        current[name] = offer
        for (id, endpoint) in endpoints.sorted(by: { $0.key < $1.key }) where id != origin {
            endpoint.replaceContent(of: name, with: content)
        }
    }

    // MARK: - Endpoints

    func attach(_ endpoint: any PasteboardEndpoint) {
        endpoints[endpoint.id] = endpoint
        valves[endpoint.id] = Valve(tokens: Self.offerBurst, refillAt: clock.now())
        // A side that joins late serves what the others hold now.
        for (name, offer) in current.sorted(by: { $0.key.rawValue < $1.key.rawValue })
        where offer.origin != endpoint.id && (offer.content != nil || !offer.types.isEmpty) {
            endpoint.serve(offer, count: counts[name] ?? 0)
        }
    }

    /// Detaches an endpoint: its offers stay current with the bytes it kept of them (`keptContent`), served on
    /// by the others; those it kept nothing of are withdrawn from every other side; fetches from it fail at
    /// once, its own are forgotten.
    func detach(_ id: EndpointID) {
        guard let detached = endpoints.removeValue(forKey: id) else { return }
        valves[id] = nil
        for (name, offer) in current.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where offer.origin == id && offer.content == nil {
            let count = counts[name] ?? 0
            if let kept = detached.keptContent(of: name) {
                current[name]?.content = kept
                for endpoint in others(than: id) { endpoint.serve(current[name]!, count: count) }
            } else {
                current[name] = nil
                for endpoint in others(than: id) { endpoint.withdraw(name, count: count) }
            }
        }
        for (key, fetch) in fetches.sorted(by: { $0.key < $1.key }) where fetch.requester == id || fetch.origin == id {
            fetches[key] = nil
            // A reader waiting on the detached side's content is refused now, not at the deadline.
            if fetch.origin == id { fetch.completion(.failed("the display that offered the content is no longer served")) }
        }
    }

    // MARK: - Changes

    /// `endpoint`'s side changed `name` at `count` (the count that side reached with it).
    func changed(_ name: PasteboardName, on endpoint: EndpointID, count: UInt64, _ change: Change) {
        guard endpoints[endpoint] != nil, isShared(name) else { return }
        if case .offered(let offer) = change {
            guard offer.origin == endpoint else { return }
            if let last = lastSerial[endpoint], offer.serial <= last {
                log.limited(.debug, key: "stale-offer", "dropped a stale offer of \(name) from \(endpoints[endpoint]?.name ?? "\(endpoint)")")
                return
            }
            lastSerial[endpoint] = offer.serial
            guard admit(offer, count: count) else {
                // Held back, it is still a change: every side counts on from it now (else the next copy elsewhere
                // would take the same number), and is served it when the valve lets it through.
                let total = raise(name, to: count)
                for other in others(than: endpoint) { other.adopt(count: total, for: name) }
                return
            }
            pass(offer, count: count)
            return
        }
        // A clear or an emptied side ends what the others served for it (or for anyone: one pasteboard).
        valves[endpoint]?.held[name] = nil
        let held = current.removeValue(forKey: name)
        let total = raise(name, to: count)
        for other in others(than: endpoint) {
            if held != nil { other.withdraw(name, count: total) } else { other.adopt(count: total, for: name) }
        }
    }

    private func pass(_ offer: Offer, count: UInt64) {
        current[offer.pasteboard] = offer
        let total = raise(offer.pasteboard, to: count)
        // An offer of nothing (its types unknown) serves nothing: the others just stop serving what came before.
        let empty = offer.content == nil && offer.types.isEmpty
        for other in others(than: offer.origin) {
            if empty { other.withdraw(offer.pasteboard, count: total) } else { other.serve(offer, count: total) }
        }
    }

    private func raise(_ name: PasteboardName, to count: UInt64) -> UInt64 {
        let total = max(counts[name] ?? 0, count)
        counts[name] = total
        return total
    }

    private func others(than id: EndpointID) -> [any PasteboardEndpoint] {
        endpoints.values.filter { $0.id != id }.sorted { $0.id < $1.id }
    }

    /// True when the valve lets `offer` through now; else it is held (replacing an older held offer of the
    /// same pasteboard) until `expire` lets it pass.
    private func admit(_ offer: Offer, count: UInt64) -> Bool {
        guard var valve = valves[offer.origin] else { return false }
        refill(&valve, now: clock.now())
        defer { valves[offer.origin] = valve }
        if valve.tokens > 0 && valve.held.isEmpty {
            valve.tokens -= 1
            return true
        }
        if valve.held.isEmpty {
            log.limited(.info, key: "offer-valve", "\(endpoints[offer.origin]?.name ?? "an endpoint") changes faster than "
                        + "\(Self.offerBurst) offers at once: passing its newest every \(Self.offerInterval)")
        }
        valve.held[offer.pasteboard] = (offer, count)
        return false
    }

    private func refill(_ valve: inout Valve, now: MonotonicInstant) {
        while valve.refillAt + Self.offerInterval <= now && valve.tokens < Self.offerBurst {
            valve.tokens += 1
            valve.refillAt = valve.refillAt + Self.offerInterval
        }
        if valve.tokens == Self.offerBurst { valve.refillAt = now }
    }

    // MARK: - Fetching

    /// Fetches `type` of the current offer of `name` (as `serial`) for a reader on `requester`'s side:
    /// from the offer's bytes when it has them, else from its origin, within `fetchTimeout`.
    func fetch(_ name: PasteboardName, type: PasteboardType, serial: UInt64, origin: EndpointID, for requester: EndpointID,
               completion: @escaping (FetchResult) -> Void) {
        guard let offer = current[name], offer.origin == origin, offer.serial == serial else {
            return completion(.failed("\(name) changed since: the content asked for is no longer offered"))
        }
        if let content = offer.content { return completion(FetchResult(type, of: content, name)) }
        guard origin != requester, let source = endpoints[origin] else {
            return completion(.failed("the display that offered \(name) is not connected"))
        }
        guard fetches.values.filter({ $0.requester == requester }).count < Self.maximumFetchesInFlight else {
            return completion(.failed("too many reads of another display's content at once"))
        }
        let key = nextFetch
        nextFetch += 1
        fetches[key] = Fetch(requester: requester, origin: origin, deadline: clock.now() + fetchTimeout, completion: completion)
        source.fetch(name, type: type, serial: serial) { [weak self] result in
            guard let self, let fetch = self.fetches.removeValue(forKey: key) else { return }   // timed out already
            fetch.completion(result)
        }
    }

    /// True while the valve holds back an offer of `name` from `origin` (it reaches the other sides later).
    func holdsOffer(of name: PasteboardName, from origin: EndpointID) -> Bool { valves[origin]?.held[name] != nil }

    /// Fetches under way, for `pb status`.
    var fetchesInFlight: Int { fetches.count }

    // MARK: - Time

    var nextDeadline: MonotonicInstant? {
        var earliest = Earliest()
        for valve in valves.values where !valve.held.isEmpty { earliest.add(valve.refillAt + Self.offerInterval) }
        for fetch in fetches.values { earliest.add(fetch.deadline) }
        return earliest.value
    }

    /// Fails fetches past their deadline and lets held offers through as the valve refills.
    func expire(now: MonotonicInstant) {
        // Each turn of the loop comes here: nothing is sorted (an array made and freed) unless something is due.
        for (key, fetch) in fetches.due(by: now, deadline: \.deadline, ordered: <) {
            fetches[key] = nil
            fetch.completion(.failed("the display that offered the content did not answer within \(fetchTimeout)"))
        }
        guard valves.values.contains(where: { !$0.held.isEmpty }) else { return }
        for id in valves.keys.sorted() {
            guard var valve = valves[id], !valve.held.isEmpty else { continue }
            refill(&valve, now: now)
            var passing: [(Offer, UInt64)] = []
            for name in valve.held.keys.sorted(by: { $0.rawValue < $1.rawValue }) where valve.tokens > 0 {
                valve.tokens -= 1
                passing.append(valve.held.removeValue(forKey: name)!)
            }
            valves[id] = valve
            for (offer, count) in passing { pass(offer, count: count) }
        }
    }
}
