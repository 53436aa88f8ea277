// SPDX-License-Identifier: Apache-2.0
/// Small value types for the X protocol's identifiers, so that atoms, windows and times are never
/// confused with each other or with plain integers. X identifiers are 29-bit values carried in 32 bits.

/// An interned X atom. `Atom.none` (0) means "no atom" (the protocol's None).
public struct Atom: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public static let none = Atom(0)
    public var isNone: Bool { rawValue == 0 }
    public static func < (a: Atom, b: Atom) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "atom \(rawValue)" }
}

/// An X window. `WindowID.none` (0) means no window (an unowned selection).
public struct WindowID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public static let none = WindowID(0)
    public var isNone: Bool { rawValue == 0 }
    public var description: String { "window 0x" + String(rawValue, radix: 16) }
}

/// An X server time in milliseconds, wrapping every ~49.7 days. `Timestamp.currentTime` (0) is the
/// protocol's CurrentTime. Ordering follows ICCCM: compare by signed 32-bit difference, so that times
/// on either side of a wrap still order correctly.
public struct Timestamp: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public static let currentTime = Timestamp(0)
    public var isCurrentTime: Bool { rawValue == 0 }

    /// True when `self` is earlier than `other`, allowing for wraparound.
    public func isEarlier(than other: Timestamp) -> Bool {
        Int32(bitPattern: rawValue &- other.rawValue) < 0
    }
    public var description: String { "time \(rawValue)" }
}

/// Bytes kept outside the process's heap — a file the daemon wrote — read a range at a time when they are
/// needed, so that holding large content costs page cache, not memory.
///
/// Contract: a source is immutable (its `count` and bytes never change) and `read` may be called from any
/// thread; a failed read throws and leaves the source usable. The one exception is a source still arriving
/// (`isFinal` false: bytes relayed from another owner as they come): its `count` only grows, the bytes below
/// it never change, and it is read on the loop's thread only; only an INCR transfer sends one.
public protocol ByteSource: AnyObject, Sendable {
    /// How many bytes the source holds (so far, while it is not final).
    var count: Int { get }
    /// The bytes of `range`, which lies within `0..<count`.
    func read(_ range: Range<Int>) throws -> [UInt8]
    /// False while more bytes may still arrive; true (the default) for a source whose `count` is its size.
    var isFinal: Bool { get }
    /// The size to announce before the bytes are all there (an INCR header's lower bound): `count` by default.
    var expectedCount: Int { get }
    /// Calls `body` with the bytes of `range` where they are, when the source holds them in memory (valid during
    /// the call only); by default they are `read` first.
    func withBytes(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> Void) throws
}

extension ByteSource {
    public var isFinal: Bool { true }
    public var expectedCount: Int { count }
    public func withBytes(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> Void) throws {
        try read(range).withUnsafeBytes(body)
    }
}

/// Bytes to send: in memory, or a `ByteSource` read a piece at a time as they go out (content served from its
/// file). What an INCR transfer sends (`IncrSend.Payload`) and what a control frame is made of (`FramePiece`).
public enum SentBytes: Sendable {
    case bytes([UInt8])
    case source(any ByteSource)

    /// The length in bytes.
    public var count: Int {
        switch self {
        case .bytes(let bytes): bytes.count
        case .source(let source): source.count
        }
    }

    /// Calls `body` with the bytes of `range`: in place for bytes in memory, read from the source (which may
    /// throw) otherwise.
    public func withChunk<Result>(_ range: Range<Int>, _ body: (UnsafeRawBufferPointer) -> Result) throws -> Result {
        switch self {
        case .bytes(let bytes):
            return bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[range])) }
        case .source(let source):
            var result: Result?
            try source.withBytes(range) { result = body($0) }
            return result!
        }
    }
}

/// The value of a window property as X carries it: a type atom and items of 8, 16 or 32 bits.
/// Format-32 items are kept as `UInt32` here; the X door converts them to and from C longs.
public struct PropertyValue: Equatable, Sendable {
    public enum Items: Equatable, Sendable {
        case bytes([UInt8])
        case shorts([UInt16])
        case longs([UInt32])
        /// 8-bit data read from a `ByteSource` as it is sent (an INCR transfer's chunks), never whole in memory.
        case source(any ByteSource)

        public static func == (a: Items, b: Items) -> Bool {
            switch (a, b) {
            case (.bytes(let x), .bytes(let y)): x == y
            case (.shorts(let x), .shorts(let y)): x == y
            case (.longs(let x), .longs(let y)): x == y
            case (.source(let x), .source(let y)): x === y
            default: false
            }
        }
    }
    public var type: Atom
    public var items: Items

    public init(type: Atom, bytes: [UInt8]) { self.type = type; self.items = .bytes(bytes) }
    public init(type: Atom, longs: [UInt32]) { self.type = type; self.items = .longs(longs) }
    public init(type: Atom, items: Items) { self.type = type; self.items = items }
    public init(type: Atom, source: any ByteSource) { self.type = type; self.items = .source(source) }

    /// 8, 16 or 32.
    public var format: Int {
        switch items { case .bytes, .source: 8; case .shorts: 16; case .longs: 32 }
    }
    /// The size the data occupies on the wire, in bytes.
    public var byteCount: Int {
        switch items {
        case .bytes(let b): b.count
        case .shorts(let s): s.count * 2
        case .longs(let l): l.count * 4
        case .source(let source): source.count
        }
    }
    /// The items as atoms (for ATOM and ATOM_PAIR values); empty for 8- and 16-bit data.
    public var atoms: [Atom] {
        if case .longs(let l) = items { return l.map(Atom.init(rawValue:)) }
        return []
    }
    /// The data as bytes when the format is 8 and they are in memory, else nil.
    public var bytes: [UInt8]? {
        if case .bytes(let b) = items { return b }
        return nil
    }

    /// The value with a `source`'s bytes read into memory (a value small enough for one request); other
    /// values as they are. Throws what the source's read throws.
    /// False for bytes still arriving from a source (`ByteSource.isFinal`): sent by INCR only.
    public var isFinal: Bool {
        if case .source(let source) = items { return source.isFinal }
        return true
    }

    public func inMemory() throws -> PropertyValue {
        guard case .source(let source) = items else { return self }
        return PropertyValue(type: type, bytes: try source.read(0..<source.count))
    }
}

/// A protocol error reported by the X server, matched to the request that caused it.
public struct XProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    public var serial: UInt64
    public var errorCode: UInt8
    public var requestCode: UInt8
    public var minorCode: UInt8
    public var resourceID: UInt32
    public init(serial: UInt64, errorCode: UInt8, requestCode: UInt8, minorCode: UInt8, resourceID: UInt32) {
        self.serial = serial
        self.errorCode = errorCode
        self.requestCode = requestCode
        self.minorCode = minorCode
        self.resourceID = resourceID
    }
    /// The X error's name (BadWindow, BadAtom...) for the core protocol's codes.
    public var name: String {
        let names = ["Success", "BadRequest", "BadValue", "BadWindow", "BadPixmap", "BadAtom", "BadCursor",
                     "BadFont", "BadMatch", "BadDrawable", "BadAccess", "BadAlloc", "BadColor", "BadGC",
                     "BadIDChoice", "BadName", "BadLength", "BadImplementation"]
        return Int(errorCode) < names.count ? names[Int(errorCode)] : "error \(errorCode)"
    }
    public static let badWindowCode: UInt8 = 3
    public static let badAtomCode: UInt8 = 5
    public static let badAllocCode: UInt8 = 11
    public var description: String {
        "\(name) (request \(requestCode).\(minorCode), resource 0x\(String(resourceID, radix: 16)), serial \(serial))"
    }
}
