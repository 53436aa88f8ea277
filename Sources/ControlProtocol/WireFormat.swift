// SPDX-License-Identifier: Apache-2.0
import PasteboardCore
import XTypes

/// Appends the protocol's field encodings to a byte array: little-endian integers, length-prefixed
/// byte strings and UTF-8 strings, count-prefixed arrays.
///
/// Large byte strings can be kept by reference (`sharedBytes`): the output is then a list of segments —
/// `sealed`, then `bytes` — whose concatenation is the encoding, so a 64 MiB representation is written
/// to a socket from the array that already holds it instead of being copied into a frame.
///
/// With `keepsSources`, a large representation whose bytes stay in a `ByteSource` (a file `pb copy` was
/// given) is not read at all: `pieces` names the source in its place, for a writer that streams it.
public struct WireWriter: Sendable {
    /// The encoding after the last shared byte string (all of it when nothing was shared).
    public private(set) var bytes: [UInt8]
    /// Segments before `bytes`, in order: buffers closed by `sharedBytes` and the shared arrays (for a kept
    /// source, an empty placeholder: `sources` holds it).
    public private(set) var sealed: [[UInt8]] = []
    /// The sources kept in place of their bytes (`keepsSources`), by their index in `sealed`.
    private var sources: [Int: any ByteSource] = [:]
    /// Whether `representationBytes` keeps a representation's source unread rather than reading its bytes.
    public var keepsSources = false

    /// Byte strings at least this long are shared by `sharedBytes` rather than copied.
    public static let sharingThreshold = 64 << 10

    /// Bytes written so far, in every segment (a kept source's included).
    public var count: Int { sealed.reduce(bytes.count) { $0 + $1.count } + sources.values.reduce(0) { $0 + $1.count } }

    /// Every segment in order (`sealed`, then `bytes`), empty ones left out. Kept sources are read here
    /// (a failed read gives no bytes, as `Representation.data` does): `pieces` streams them instead.
    public var segments: [[UInt8]] {
        pieces.compactMap { piece in
            switch piece {
            case .bytes(let bytes): bytes
            case .source(let source): (try? source.read(0..<source.count)) ?? []
            }
        }.filter { !$0.isEmpty }
    }

    /// Every piece in order, as `segments`, but each kept source named rather than read.
    public var pieces: [FramePiece] {
        var pieces: [FramePiece] = []
        for (index, segment) in sealed.enumerated() {
            if let source = sources[index] { pieces.append(.source(source)) } else if !segment.isEmpty { pieces.append(.bytes(segment)) }
        }
        if !bytes.isEmpty { pieces.append(.bytes(bytes)) }
        return pieces
    }

    /// The whole encoding in one array (a copy only when something was shared).
    public var joined: [UInt8] {
        guard !sealed.isEmpty else { return bytes }
        var all: [UInt8] = []
        all.reserveCapacity(count)
        for segment in segments { all += segment }
        return all
    }

    public init(reservingCapacity capacity: Int = 64) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func u8(_ value: UInt8) { bytes.append(value) }

    public mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

    public mutating func u16(_ value: UInt16) { littleEndian(value) }

    public mutating func u32(_ value: UInt32) { littleEndian(value) }

    public mutating func u64(_ value: UInt64) { littleEndian(value) }

    public mutating func i64(_ value: Int64) { littleEndian(value) }

    /// A u32 length, then the raw bytes.
    public mutating func bytes<Bytes: Collection>(_ value: Bytes) where Bytes.Element == UInt8 {
        count(value.count)
        bytes.append(contentsOf: value)
    }

    /// Like `bytes(_:)`, but a value of `sharingThreshold` bytes or more becomes a segment of its own,
    /// shared with the caller's array rather than copied.
    public mutating func sharedBytes(_ value: [UInt8]) {
        guard value.count >= Self.sharingThreshold else {
            bytes(value)
            return
        }
        count(value.count)
        sealed.append(bytes)
        sealed.append(value)
        bytes = []
    }

    /// A representation's bytes, as `sharedBytes(representation.data)`; but with `keepsSources`, a source of
    /// `sharingThreshold` bytes or more is kept, unread, as a piece of its own (`pieces`).
    public mutating func representationBytes(_ representation: Representation) {
        guard keepsSources, let source = representation.source, source.count >= Self.sharingThreshold else {
            sharedBytes(representation.data)
            return
        }
        count(source.count)
        sealed.append(bytes)
        sources[sealed.count] = source
        sealed.append([])
        bytes = []
    }

    /// A u32 byte length, then UTF-8. With `truncatingTo`, longer text is cut at a Unicode scalar
    /// boundary so that the peer's cap is never exceeded (for free-form text such as messages).
    public mutating func string(_ value: String, truncatingTo maximum: Int? = nil) {
        let utf8 = value.utf8
        guard let maximum, utf8.count > maximum else {
            bytes(utf8)
            return
        }
        var end = utf8.index(utf8.startIndex, offsetBy: maximum)
        // Back up over continuation bytes (10xxxxxx) to the start of a scalar.
        while end > utf8.startIndex && utf8[end] & 0xC0 == 0x80 { end = utf8.index(before: end) }
        bytes(utf8[utf8.startIndex..<end])
    }

    /// A u32 element count.
    public mutating func count(_ value: Int) {
        precondition(value >= 0 && value <= Int(UInt32.max), "a count must fit in u32")
        u32(UInt32(value))
    }

    /// A u32 count, then each element written by `element`.
    public mutating func array<Elements: Collection>(_ elements: Elements, _ element: (inout WireWriter, Elements.Element) -> Void) {
        count(elements.count)
        for value in elements { element(&self, value) }
    }

    /// Overwrites 4 bytes at `offset` of the first segment with `value`, little-endian (for a frame's
    /// length, known last). The first segment is never a shared one.
    mutating func patchU32(_ value: UInt32, at offset: Int) {
        if sealed.isEmpty {
            for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
        } else {
            for index in 0..<4 { sealed[0][offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
        }
    }

    private mutating func littleEndian<T: FixedWidthInteger>(_ value: T) {
        var little = value.littleEndian
        withUnsafeBytes(of: &little) { bytes.append(contentsOf: $0) }
    }
}

/// One piece of an encoded frame (`WireWriter.pieces`): bytes in memory, or a source whose bytes are read
/// as the piece is written.
public typealias FramePiece = SentBytes

/// Reads fields from a message body, checking every length against what remains and against its cap
/// before allocating. Field names are autoclosures so that naming costs nothing unless decoding fails.
public struct WireReader: Sendable {
    public let bytes: [UInt8]
    public private(set) var offset: Int
    /// When set, a `bytes` field this long or longer is not copied: `bytes` returns an empty placeholder and
    /// its range is added to `deferred`, for the decoder to take it from the body itself (in place).
    public var deferringFieldsOf: Int?
    /// The ranges of the fields `bytes` deferred, in the order read.
    public private(set) var deferred: [Range<Int>] = []

    /// Forgets the deferred ranges at `indices` (fields the decoder read but does not keep).
    mutating func forgetDeferred(at indices: [Int]) {
        for index in indices.sorted(by: >) { deferred.remove(at: index) }
    }

    public init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    public var remaining: Int { bytes.count - offset }

    public mutating func u8(_ field: @autoclosure () -> String) throws -> UInt8 {
        try need(1, field)
        defer { offset += 1 }
        return bytes[offset]
    }

    /// One byte that must be 0 or 1.
    public mutating func bool(_ field: @autoclosure () -> String) throws -> Bool {
        let value = try u8(field())
        guard value <= 1 else { throw ControlProtocolError.invalidValue(field: field(), reason: "boolean is \(value), not 0 or 1") }
        return value == 1
    }

    public mutating func u16(_ field: @autoclosure () -> String) throws -> UInt16 { try littleEndian(field) }

    public mutating func u32(_ field: @autoclosure () -> String) throws -> UInt32 { try littleEndian(field) }

    public mutating func u64(_ field: @autoclosure () -> String) throws -> UInt64 { try littleEndian(field) }

    public mutating func i64(_ field: @autoclosure () -> String) throws -> Int64 { try littleEndian(field) }

    /// A u32 length (at most `maximum` and at most what remains), then that many raw bytes.
    public mutating func bytes(_ field: @autoclosure () -> String, maximum: Int = .max) throws -> [UInt8] {
        let length = try lengthPrefix(field, maximum: maximum)
        defer { offset += length }
        if let threshold = deferringFieldsOf, length >= threshold {
            deferred.append(offset..<offset + length)
            return []
        }
        return Array(bytes[offset..<offset + length])
    }

    /// A u32 byte length (at most `maximum`), then that much UTF-8, validated. With `forbidNUL`,
    /// a NUL byte is refused too (names that end up as C strings or X atoms).
    public mutating func string(_ field: @autoclosure () -> String, maximum: Int, forbidNUL: Bool = false) throws -> String {
        let length = try lengthPrefix(field, maximum: maximum)
        let start = offset
        let slice = bytes[start..<start + length]
        guard let value = String(validating: slice, as: UTF8.self) else {
            throw ControlProtocolError.invalidUTF8(field: field(), offset: start)
        }
        if forbidNUL && slice.contains(0) {
            throw ControlProtocolError.invalidValue(field: field(), reason: "contains a NUL byte")
        }
        offset += length
        return value
    }

    /// A u32 element count, at most `maximum` and at most `remaining / minimumElementSize`, so a
    /// hostile count cannot make the caller reserve memory the body does not back.
    public mutating func count(_ field: @autoclosure () -> String, maximum: Int, minimumElementSize: Int) throws -> Int {
        let count = Int(try u32(field()))
        guard count <= maximum else { throw ControlProtocolError.tooLong(field: field(), length: count, maximum: maximum) }
        if minimumElementSize > 0 && count > remaining / minimumElementSize {
            throw ControlProtocolError.countExceedsRemainingBytes(field: field(), count: count, remaining: remaining)
        }
        return count
    }

    /// A count, then `count` elements read by `element(&reader, index)`.
    public mutating func array<Element>(
        _ field: @autoclosure () -> String, maximum: Int, minimumElementSize: Int,
        _ element: (inout WireReader, Int) throws -> Element
    ) throws -> [Element] {
        let count = try count(field(), maximum: maximum, minimumElementSize: minimumElementSize)
        var result: [Element] = []
        result.reserveCapacity(count)
        for index in 0..<count { result.append(try element(&self, index)) }
        return result
    }

    /// Throws `trailingBytes` unless every byte was read.
    public func expectEnd(of kind: @autoclosure () -> String) throws {
        if remaining != 0 { throw ControlProtocolError.trailingBytes(kind: kind(), count: remaining) }
    }

    private mutating func lengthPrefix(_ field: () -> String, maximum: Int) throws -> Int {
        let length = Int(try u32(field()))
        guard length <= maximum else { throw ControlProtocolError.tooLong(field: field(), length: length, maximum: maximum) }
        try need(length, field)
        return length
    }

    private func need(_ count: Int, _ field: () -> String) throws {
        guard remaining >= count else {
            throw ControlProtocolError.truncated(field: field(), offset: offset, needed: count, available: remaining)
        }
    }

    private mutating func littleEndian<T: FixedWidthInteger>(_ field: () -> String) throws -> T {
        let size = MemoryLayout<T>.size
        try need(size, field)
        var value: T = 0
        for index in 0..<size { value |= T(bytes[offset + index]) << (8 * index) }
        offset += size
        return value
    }
}
