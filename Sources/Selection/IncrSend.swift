// SPDX-License-Identifier: Apache-2.0
import XTypes

/// Identifies one transfer in flight: ICCCM lets one requestor window run several transfers on
/// different properties, and two windows may use the same property name.
public struct TransferKey: Hashable, Sendable, CustomStringConvertible {
    public var requestor: WindowID
    public var property: Atom
    public init(requestor: WindowID, property: Atom) {
        self.requestor = requestor
        self.property = property
    }
    public var description: String { "\(requestor) \(property)" }
}

/// An INCR transfer sent by the owner (ICCCM 2.5), as a value.
///
/// The owner has written the `INCR` header and sent SelectionNotify. Each time the requestor deletes
/// the property, `propertyDeleted()` says what to write next: the next chunk of the payload, then one
/// zero-length property that ends the transfer. Timeouts and the requestor's death are the shell's
/// business: it drops the value. A payload from a `ByteSource` is read a chunk at a time by the shell
/// (`Payload.chunk`), so a transfer from a file holds one chunk, not the whole value. A payload still arriving
/// (`ByteSource.isFinal` false: relayed from another owner as it comes) is sent as it grows: when the
/// requestor is ready before the next bytes are, `propertyDeleted()` says `waitForMore`, and `bytesArrived()`
/// gives the write once they are there.
public struct IncrSend: Equatable, Sendable {
    public enum Step: Equatable, Sendable {
        /// Write the payload's bytes in this range with `type`, format 8, replacing the property.
        case writeChunk(Range<Int>)
        /// Write a zero-length property with `type`; the transfer is then complete.
        case writeEnd
        /// Nothing more to do; a delete after the end is ignored.
        case done
        /// The requestor is ready for the next chunk, but the payload has no more bytes yet and is not final:
        /// call `bytesArrived()` when it grows or becomes final.
        case waitForMore
    }

    /// What is sent: bytes in memory, or a source read a chunk at a time.
    public typealias Payload = SentBytes

    public let key: TransferKey
    public let type: Atom
    public let payload: Payload
    public let chunkSize: Int
    public private(set) var offset: Int = 0
    public private(set) var isComplete = false
    public private(set) var chunksWritten = 0
    /// True after the requestor deleted the property and before the next write (a payload still arriving).
    public private(set) var isRequestorReady = false

    /// - Precondition: `chunkSize > 0`.
    public init(key: TransferKey, type: Atom, payload: Payload, chunkSize: Int) {
        precondition(chunkSize > 0, "INCR chunks must hold at least one byte")
        self.key = key
        self.type = type
        self.payload = payload
        self.chunkSize = chunkSize
    }

    /// A transfer of bytes in memory.
    public init(key: TransferKey, type: Atom, data: [UInt8], chunkSize: Int) {
        self.init(key: key, type: type, payload: .bytes(data), chunkSize: chunkSize)
    }

    /// The header property the owner writes before notifying: type INCR, one 32-bit item holding the
    /// total size (a lower bound per ICCCM; exact for a final payload, else what the payload expects; capped
    /// at UInt32.max).
    public func header(incrAtom: Atom) -> PropertyValue {
        PropertyValue(type: incrAtom, longs: [UInt32(clamping: isPayloadFinal ? payload.count : payloadExpectedCount)])
    }

    /// Advances after the requestor deleted the property.
    public mutating func propertyDeleted() -> Step {
        if isComplete { return .done }
        isRequestorReady = true
        return bytesArrived()
    }

    /// Advances after a payload still arriving grew or became final: the write the requestor waits for, if it
    /// waits and there is something to write; else `waitForMore` (or `done` after the end).
    public mutating func bytesArrived() -> Step {
        if isComplete { return .done }
        guard isRequestorReady else { return .waitForMore }
        let available = payload.count
        // While the payload arrives only whole chunks go (fewer, larger writes: each is a round of events);
        // the rest goes once it is final.
        if offset < available && (isPayloadFinal || available - offset >= chunkSize) {
            let end = min(offset + chunkSize, available)
            defer { offset = end; chunksWritten += 1; isRequestorReady = false }
            return .writeChunk(offset..<end)
        }
        guard isPayloadFinal, offset == available else { return .waitForMore }
        isComplete = true
        isRequestorReady = false
        return .writeEnd
    }

    private var isPayloadFinal: Bool {
        if case .source(let source) = payload { return source.isFinal }
        return true
    }

    private var payloadExpectedCount: Int {
        if case .source(let source) = payload { return max(source.expectedCount, source.count) }
        return payload.count
    }

    public static func == (a: IncrSend, b: IncrSend) -> Bool {
        a.key == b.key && a.type == b.type && a.offset == b.offset && a.isComplete == b.isComplete
            && a.chunkSize == b.chunkSize && a.payload.count == b.payload.count
            && a.isRequestorReady == b.isRequestorReady
    }
}

/// An INCR transfer received by a requestor (ICCCM 2.5), as a value with a size cap.
///
/// After seeing the `INCR` header the requestor deletes the property; then for each new value it reads
/// the property with delete and passes it here. A zero-length value ends the transfer.
public struct IncrReceive: Sendable {
    public enum Outcome: Equatable, Sendable {
        case needMore
        case complete
        /// The data would exceed the cap; the requestor should stop and drain or abandon.
        case overCap
        /// A chunk whose type differs from the first one's.
        case typeMismatch
    }

    /// Advises the system about a large buffer about to be filled (`count` bytes at the pointer): the daemon's is
    /// `HugePages.advise`. It changes no contents.
    public typealias Advise = @Sendable (UnsafeMutableRawPointer, Int) -> Void

    public private(set) var type: Atom?
    /// The bytes received and not moved out (`moveOut`).
    public private(set) var data: [UInt8] = []
    /// How many bytes were moved out of `data` (`moveOut`): they count towards the cap as ever.
    public private(set) var movedOut = 0
    public let cap: Int
    private let advise: Advise?
    /// The capacity from which `data` grows into advised memory: below it, as any array grows.
    static let advisedFrom = 2 << 20

    /// `sizeHint` is the header's lower bound, used only to reserve capacity up to the cap. `advise` is told of
    /// each buffer of `advisedFrom` bytes or more that `data` grows into, before it is written (an owner that
    /// announces no size, as xclip, has its value grown by doubling, some 128 MiB touched for 64 MiB: in huge pages
    /// that is about 64 faults instead of 32,000, which were most of the daemon's CPU for it, docs/performance.md).
    public init(cap: Int, sizeHint: Int = 0, advise: Advise? = nil) {
        self.cap = cap
        self.advise = advise
        if sizeHint > 0 { grow(toHold: min(sizeHint, cap)) }
    }

    /// Makes room for at least `needed` bytes in `data`: twice the capacity it had (the cap at most), in
    /// advised memory once that is `advisedFrom` or more; the bytes so far are copied over once.
    private mutating func grow(toHold needed: Int) {
        let capacity = max(needed, min(data.capacity * 2, cap))
        guard let advise, capacity >= Self.advisedFrom else {
            data.reserveCapacity(capacity)
            return
        }
        let old = data
        data = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            advise(UnsafeMutableRawPointer(base), capacity)
            old.withUnsafeBufferPointer { source in
                if let from = source.baseAddress { base.initialize(from: from, count: source.count) }
            }
            initialized = old.count
        }
    }

    /// How many bytes were received in all, those moved out included.
    public var count: Int { movedOut + data.count }

    /// Hands the bytes in `data` to `body` (valid during the call) and lets them go: `data` is then empty, its
    /// capacity kept for the next chunk. A receiver that moves each chunk out (to a file) holds one chunk at a
    /// time, never the whole value; the cap still applies to everything received. When `body` throws, nothing is
    /// moved out.
    public mutating func moveOut(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        try data.withUnsafeBytes(body)
        movedOut += data.count
        data.removeAll(keepingCapacity: true)
    }

    public mutating func receive(type chunkType: Atom, bytes: [UInt8]) -> Outcome {
        bytes.withUnsafeBytes { receive(type: chunkType, bytes: $0) }
    }

    /// `receive` of a chunk where it was read (the X door's buffer): copied once, to the end of `data`.
    public mutating func receive(type chunkType: Atom, bytes: UnsafeRawBufferPointer) -> Outcome {
        if bytes.isEmpty { return .complete }
        if let type, type != chunkType { return .typeMismatch }
        type = chunkType
        if count + bytes.count > cap { return .overCap }
        if data.count + bytes.count > data.capacity { grow(toHold: data.count + bytes.count) }
        data.append(contentsOf: bytes)
        return .needMore
    }
}
