// SPDX-License-Identifier: Apache-2.0
import XTypes

/// An application on a `FakeXServer` that owns a selection and answers requests for it: TARGETS, its
/// targets (by INCR above `incrThreshold`), and — to play a misbehaving owner — silence, or xclip's habit
/// of answering every target with its one type's bytes.
public final class FakeOwner {
    public let connection: FakeXServer.Connection
    public let window: WindowID
    public let selection: Atom
    /// Each target's value, in the order TARGETS lists them.
    public var targets: [(name: String, value: [UInt8])]
    /// Requests are never answered (a hung owner).
    public var silent = false
    /// Requests for these targets are never answered (an owner that hangs on one of them).
    public var silentFor: Set<String> = []
    /// Every target is answered with this one target's bytes and type (xclip).
    public var answersEverythingWith: String?
    /// Replies given instead of a target's value: a property value of any type and format, or nil to refuse
    /// the target (property None) though TARGETS lists it.
    public var replies: [String: PropertyValue?] = [:]
    /// Values larger than this go by INCR, in chunks of this size.
    public var incrThreshold = Int.max
    /// With a number, each INCR transfer stops after that many chunks until `resumeTransfers()` (an owner
    /// still sending, to watch what readers elsewhere have meanwhile).
    public var pausesAfterChunks: Int?
    /// False: the INCR header carries no size, as xclip's does not.
    public var announcesSize = true
    private var paused: [Key] = []
    /// The requests seen, by target name.
    public private(set) var requested: [String] = []
    /// INCR transfers this owner is still sending (a requestor that walked away leaves one here for good).
    public var transfersInProgress: Int { transfers.count }
    /// The SelectionNotify events this owner got for requests of its own (target, property; None: refused).
    public private(set) var notifications: [(target: Atom, property: Atom)] = []
    private struct Key: Hashable { var requestor: WindowID; var property: Atom }
    private var transfers: [Key: (type: Atom, data: [UInt8], offset: Int, ended: Bool, chunks: Int)] = [:]

    public init(server: FakeXServer, selection: String, targets: [(String, [UInt8])]) {
        connection = server.connect()
        window = connection.createWindow(eventMask: [.propertyChange])
        self.selection = connection.intern(selection)
        self.targets = targets.map { (name: $0.0, value: $0.1) }
    }

    /// Answers each request as it arrives, inside the requestor's own call: for a blocking reader on the
    /// same thread.
    public func answerAtOnce() {
        connection.onEvent = { [weak self] in self?.pump() }
    }

    /// Takes the selection now (CurrentTime, as xclip does).
    public func own() {
        connection.setSelectionOwner(selection, owner: window, time: .currentTime)
    }

    /// Answers what has arrived; true when anything was done.
    @discardableResult
    public func pump() -> Bool {
        var worked = false
        while connection.pendingEvents() > 0 {
            worked = true
            switch connection.nextEvent() {
            case .selectionRequest(let request): answer(request)
            case .propertyNotify(let window, let property, _, let deleted) where deleted:
                advance(Key(requestor: window, property: property))
            case .selectionNotify(_, _, let target, let property, _):
                notifications.append((target, property))
            default: break
            }
        }
        return worked
    }

    /// Exits: the connection closes and with it the window (XFixes reports the client closed).
    public func exit() { connection.close() }

    private func answer(_ request: SelectionRequest) {
        let name = connection.name(of: request.target) ?? ""
        requested.append(name)
        guard !silent, !silentFor.contains(name) else { return }
        let property = request.property.isNone ? request.target : request.property
        var reply: PropertyValue?
        if name == "TARGETS" {
            let atoms = ["TARGETS"] + targets.map(\.name)
            reply = PropertyValue(type: connection.atoms.atom, longs: atoms.map { connection.intern($0).rawValue })
        } else if let custom = replies[name] {
            reply = custom
        } else if let only = answersEverythingWith, let value = targets.first(where: { $0.name == only })?.value {
            reply = PropertyValue(type: connection.intern(only), bytes: value)
        } else if let value = targets.first(where: { $0.name == name })?.value {
            if value.count > incrThreshold {
                connection.selectInput(request.requestor, [.propertyChange])
                transfers[Key(requestor: request.requestor, property: property)] = (request.target, value, 0, false, 0)
                reply = PropertyValue(type: connection.atoms.incr, longs: announcesSize ? [UInt32(value.count)] : [])
            } else {
                reply = PropertyValue(type: request.target, bytes: value)
            }
        }
        if let reply { connection.changeProperty(request.requestor, property, reply) }
        connection.sendSelectionNotify(requestor: request.requestor, selection: request.selection, target: request.target,
                                       property: reply == nil ? .none : property, time: request.time)
    }

    /// Goes on with the transfers `pausesAfterChunks` stopped, pausing next after `chunks` in all (never with nil).
    public func resumeTransfers(pausingAfter chunks: Int? = nil) {
        pausesAfterChunks = chunks
        let waiting = paused
        paused = []
        for key in waiting { advance(key) }
    }

    private func advance(_ key: Key) {
        guard var transfer = transfers[key] else { return }
        if transfer.ended {
            transfers[key] = nil
            return
        }
        if let pause = pausesAfterChunks, transfer.chunks >= pause {
            paused.append(key)
            return
        }
        transfer.chunks += 1
        let end = min(transfer.offset + incrThreshold, transfer.data.count)
        connection.changeProperty(key.requestor, key.property, PropertyValue(type: transfer.type, bytes: Array(transfer.data[transfer.offset..<end])))
        transfer.ended = transfer.offset == end
        transfer.offset = end
        transfers[key] = transfer
    }
}

/// An application on a `FakeXServer` that pastes: asks for a target and collects the answer (INCR too).
public final class FakeRequestor {
    public let connection: FakeXServer.Connection
    public let window: WindowID
    private let property: Atom
    private var incr: (type: Atom, data: [UInt8])?
    /// What the last request got: the value, or nil when refused; unset while waiting.
    public private(set) var result: PropertyValue??
    /// The bytes of an INCR answer received so far (nil when no INCR transfer is under way).
    public var receivedSoFar: Int? { incr?.data.count }

    public init(server: FakeXServer) {
        connection = server.connect()
        window = connection.createWindow(eventMask: [.propertyChange])
        property = connection.intern("FAKE_PASTE")
    }

    /// Asks for `target` of `selection`.
    public func ask(_ selection: String, _ target: String, time: Timestamp = .currentTime) {
        result = nil
        incr = nil
        connection.deleteProperty(window, property)
        connection.convertSelection(connection.intern(selection), target: connection.intern(target), property: property,
                                    requestor: window, time: time)
    }

    /// Handles what arrived; true when anything was done.
    @discardableResult
    public func pump() -> Bool {
        var worked = false
        while connection.pendingEvents() > 0 {
            worked = true
            switch connection.nextEvent() {
            case .selectionNotify(_, _, _, let replyProperty, _):
                guard !replyProperty.isNone else { result = .some(nil); continue }
                let read = connection.getProperty(window, replyProperty, delete: true, maximumBytes: Int.max / 2)
                if let value = read.value, value.type == connection.atoms.incr {
                    incr = (.none, [])
                } else {
                    result = .some(read.value)
                }
            case .propertyNotify(_, let changed, _, let deleted) where changed == property && !deleted && incr != nil:
                let chunk = connection.getProperty(window, property, delete: true, maximumBytes: Int.max / 2)
                guard let value = chunk.value, let bytes = value.bytes else { continue }
                if bytes.isEmpty {
                    result = .some(PropertyValue(type: incr!.type, bytes: incr!.data))
                    incr = nil
                } else {
                    incr!.type = value.type
                    incr!.data += bytes
                }
            default: break
            }
        }
        return worked
    }

    /// The bytes of the last answer.
    public var bytes: [UInt8]? {
        guard case .some(.some(let value)) = result else { return nil }
        return value.bytes
    }

    /// The bytes of the last answer as text, for assertions.
    public var text: String? {
        guard case .some(.some(let value)) = result, let bytes = value.bytes else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The type name of the last answer.
    public var typeName: String? {
        guard case .some(.some(let value)) = result else { return nil }
        return connection.name(of: value.type)
    }
}
