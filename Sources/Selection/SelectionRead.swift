// SPDX-License-Identifier: Apache-2.0
import XTypes

/// Why a requestor got no value for a target.
public enum SelectionReadFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The owner answered with property None: it does not offer the target.
    case refused
    /// The value is larger than the requestor's cap (`size` when the owner announced it). An INCR transfer
    /// was read to its end and thrown away first, so the owner is not left waiting.
    case tooLarge(cap: Int, size: Int?)
    /// The owner broke the protocol (an INCR chunk of another type or format); the transfer was drained.
    case malformed(String)
    /// The owner did not answer, or stopped sending, in time (the driver's timers decide).
    case timedOut
    /// The requestor ended the read before the owner did (its transfer budget ran out).
    case abandoned(String)

    public var description: String {
        switch self {
        case .refused: "the owner does not offer that type"
        case .tooLarge(let cap, let size):
            size.map { "the data (\($0) bytes) is larger than the cap of \(cap) bytes" } ?? "the data is larger than the cap of \(cap) bytes"
        case .malformed(let why): "the owner sent a malformed INCR transfer: \(why)"
        case .timedOut: "the owner did not answer in time"
        case .abandoned(let why): "stopped reading: \(why)"
        }
    }
}

/// One target read by a requestor (ICCCM 2.4, 2.5), as a value: after the driver asks for it (delete the
/// property, ConvertSelection), it feeds in the owner's SelectionNotify, the properties it reads and the
/// PropertyNotify events of new INCR chunks; each input returns what to do next.
///
/// The one policy for every reader of the project (the daemon's snapshots, the library's blocking reads):
/// - a value larger than `cap` is never kept; an INCR transfer that outgrows the cap, changes its type or
///   sends a chunk that is not format 8 is *drained* — read to its zero-length end and thrown away — since
///   owners such as xclip serve one INCR at a time and stay stuck when a requestor walks away;
/// - a single property over the cap is deleted unread;
/// - time is the driver's: it gives up with `timedOut()` when the owner is silent too long, and may end
///   a drain that never ends by abandoning its window (`abandon(_:)`).
public struct SelectionRead: Sendable {
    /// What the driver does next.
    public enum Step: Equatable, Sendable {
        /// Read the reply property with delete, at most `maximumBytes` of it from byte `offset` on (a multiple
        /// of 4; `XGetWindowProperty`, which deletes it once the read reaches its end).
        case readProperty(offset: Int = 0, maximumBytes: Int)
        /// Delete the reply property (a value over the cap, not read), then the read is finished.
        case deleteProperty
        /// Wait for the next event (an INCR chunk's PropertyNotify); restart the owner's timer.
        case wait
        /// The read is over.
        case finished(Result<PropertyValue, SelectionReadFailure>)
    }

    public enum Phase: Equatable, Sendable {
        /// ConvertSelection was sent; waiting for SelectionNotify.
        case asking
        /// SelectionNotify named a property; waiting for its value.
        case readingReply(Atom)
        /// Receiving INCR chunks.
        case receiving
        /// Reading INCR chunks to the end to throw them away, for the reason given at the end.
        case draining(SelectionReadFailure)
        case finished
    }

    public let target: Atom
    /// The property the requestor asked the owner to use.
    public let property: Atom
    public let cap: Int
    /// The most of an INCR chunk read at once (a multiple of 4): a larger chunk is read in pieces, each a
    /// round trip, so that the X library's two buffers for a reply (the connection's and the property's)
    /// stay this small — owners send chunks of 1 MiB or more, which held 2 MiB beside the data.
    public let chunkReadLimit: Int
    /// How much of the current INCR chunk was read.
    private var chunkOffset = 0
    public private(set) var phase: Phase = .asking
    private var receive: IncrReceive
    /// The size the owner's INCR header announced (a lower bound; xclip's is exact), once it was read.
    public private(set) var announcedSize: Int?
    /// How many bytes of an INCR transfer being received are in so far, those moved out included (0 otherwise).
    public var receivedCount: Int {
        if case .receiving = phase { return receive.count }
        return 0
    }
    /// How many of them were moved out (`moveOutReceived`): the read holds those from here on.
    public var movedOutCount: Int { receive.movedOut }
    /// The type of an INCR transfer's chunks, once the first came.
    public var receivedType: Atom? { receive.type }
    /// Calls `body` with bytes of an INCR transfer received so far and not moved out (`range` within
    /// `movedOutCount..<receivedCount`) where they are (valid during the call only).
    public func withReceived(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> Void) {
        precondition(range.lowerBound >= receive.movedOut, "bytes moved out are the driver's")
        let held = (range.lowerBound - receive.movedOut)..<(range.upperBound - receive.movedOut)
        receive.data.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[held])) }
    }

    /// Hands the bytes of an INCR transfer the read holds to `body` (valid during the call) and lets them go
    /// (`IncrReceive.moveOut`): a driver that keeps a large value elsewhere (a file) moves each chunk out as it
    /// comes. They still count (`receivedCount`, the cap); the value the read finishes with is then only what came
    /// after the last move. When `body` throws, nothing is moved out. Outside a transfer, `body` is not called.
    public mutating func moveOutReceived(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        guard case .receiving = phase else { return }
        try receive.moveOut(body)
    }

    /// The driver will not keep the value after all (say, it cannot write where it keeps it): the rest of the
    /// transfer is drained, read to its end and thrown away, and the read fails with `.abandoned(why)`. Only
    /// while receiving.
    public mutating func drainInstead(_ why: String) {
        guard case .receiving = phase else { return }
        receive = IncrReceive(cap: 0)
        phase = .draining(.abandoned(why))
    }
    /// The property the reply came in (the owner may name another than the one asked for).
    public private(set) var replyProperty: Atom
    private let incrAtom: Atom

    /// Told of each large buffer an INCR transfer's value grows into (`IncrReceive.Advise`).
    private let advise: IncrReceive.Advise?

    public init(target: Atom, property: Atom, cap: Int, incrAtom: Atom, chunkReadLimit: Int = 256 << 10,
                advise: IncrReceive.Advise? = nil) {
        self.target = target
        self.advise = advise
        self.property = property
        self.cap = max(cap, 0)
        self.incrAtom = incrAtom
        precondition(chunkReadLimit > 0 && chunkReadLimit % 4 == 0, "pieces are read in 32-bit units")
        self.chunkReadLimit = chunkReadLimit
        replyProperty = property
        receive = IncrReceive(cap: 0)
    }

    /// True while an INCR transfer is under way (received or drained).
    public var isTransferring: Bool {
        switch phase {
        case .receiving, .draining: true
        default: false
        }
    }

    public var isFinished: Bool { phase == .finished }

    /// The owner's SelectionNotify for this read. A duplicate during a transfer (xsel sends one at the end
    /// of INCR) is ignored.
    public mutating func notified(property: Atom) -> Step {
        guard phase == .asking else { return .wait }
        if property.isNone { return finish(.failure(.refused)) }
        replyProperty = property
        phase = .readingReply(property)
        return .readProperty(maximumBytes: cap + 1)
    }

    /// The reply property as read (with delete) after `readProperty`.
    public mutating func replyRead(_ read: PropertyRead) -> Step {
        guard let value = read.value, let bytes = value.bytes else { return replyRead(read, bytes: UnsafeRawBufferPointer(start: nil, count: 0)) }
        let bare = PropertyRead(value: PropertyValue(type: value.type, bytes: []), bytesAfter: read.bytesAfter)
        return bytes.withUnsafeBytes { replyRead(bare, bytes: $0) }
    }

    /// `replyRead` in `XDisplay.withProperty`'s form: format-8 data in `bytes` (valid during the call), not in
    /// the value. An INCR chunk goes from there to the end of the transfer's data: one copy.
    public mutating func replyRead(_ read: PropertyRead, bytes: UnsafeRawBufferPointer) -> Step {
        switch phase {
        case .readingReply:
            guard let value = read.value else { return finish(.failure(.refused)) }
            if value.type == incrAtom {
                // Reading the header with delete started the transfer (ICCCM 2.5).
                let size = value.atoms.first.map { Int($0.rawValue) }
                announcedSize = size
                if let size, size > cap {
                    phase = .draining(.tooLarge(cap: cap, size: size))
                } else {
                    receive = IncrReceive(cap: cap, sizeHint: size ?? 0, advise: advise)
                    phase = .receiving
                }
                return .wait
            }
            let byteCount = value.format == 8 ? bytes.count : value.byteCount
            if read.bytesAfter > 0 || byteCount > cap {
                phase = .finished
                return .deleteProperty
            }
            return finish(.success(value.format == 8 ? PropertyValue(type: value.type, bytes: Array(bytes)) : value))
        case .receiving, .draining:
            return chunkRead(read, bytes: bytes)
        case .asking, .finished:
            return .wait
        }
    }

    /// After `deleteProperty`: the read's result.
    public var overCapFailure: SelectionReadFailure { .tooLarge(cap: cap, size: nil) }

    /// A PropertyNotify (new value) on the reply property during a transfer: read the chunk.
    public mutating func chunkArrived() -> Step {
        guard isTransferring else { return .wait }
        chunkOffset = 0
        return .readProperty(maximumBytes: chunkReadLimit)
    }

    private mutating func chunkRead(_ read: PropertyRead, bytes: UnsafeRawBufferPointer) -> Step {
        guard let value = read.value else {   // deleted before we read it: the next notify comes
            chunkOffset = 0
            return .wait
        }
        let byteCount = value.format == 8 ? bytes.count : value.byteCount
        if chunkOffset == 0 && byteCount == 0 && read.bytesAfter == 0 {
            if case .draining(let failure) = phase { return finish(.failure(failure)) }
            let type = receive.type ?? value.type
            let data = receive.data
            receive = IncrReceive(cap: 0)
            return finish(.success(PropertyValue(type: type, bytes: data)))
        }
        if case .receiving = phase {
            guard value.format == 8 else {
                // Keeping the other chunks would keep the target with a hole in it.
                return drain(.malformed("a chunk came with format \(value.format), not 8"), reading: read, byteCount)
            }
            switch receive.receive(type: value.type, bytes: bytes) {
            case .needMore, .complete: break
            case .overCap: return drain(.tooLarge(cap: cap, size: nil), reading: read, byteCount)
            case .typeMismatch: return drain(.malformed("a chunk changed the type"), reading: read, byteCount)
            }
        }
        return nextPiece(after: read, byteCount)
    }

    /// After a piece of a chunk: the next piece while the chunk has more (read, so that it is deleted and the
    /// owner goes on, drained or not), else wait for the next chunk.
    private mutating func nextPiece(after read: PropertyRead, _ byteCount: Int) -> Step {
        guard read.bytesAfter > 0 else {
            chunkOffset = 0
            return .wait
        }
        chunkOffset += byteCount
        return .readProperty(offset: chunkOffset, maximumBytes: chunkReadLimit)
    }

    private mutating func drain(_ failure: SelectionReadFailure, reading read: PropertyRead, _ byteCount: Int) -> Step {
        receive = IncrReceive(cap: 0)
        phase = .draining(failure)
        return nextPiece(after: read, byteCount)
    }

    /// The owner was silent past the driver's timeout.
    public mutating func timedOut() -> SelectionReadFailure {
        phase = .finished
        receive = IncrReceive(cap: 0)
        return .timedOut
    }

    /// The driver ends the read (its budget ran out); it abandons the window so the owner's next chunk
    /// fails with BadWindow and the owner ends its side.
    public mutating func abandon(_ why: String) -> SelectionReadFailure {
        phase = .finished
        receive = IncrReceive(cap: 0)
        return .abandoned(why)
    }

    private mutating func finish(_ result: Result<PropertyValue, SelectionReadFailure>) -> Step {
        phase = .finished
        return .finished(result)
    }
}
