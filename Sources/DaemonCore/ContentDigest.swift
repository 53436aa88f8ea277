// SPDX-License-Identifier: Apache-2.0
import PasteboardCore

/// The history's de-duplication digest (`HistoryStore.digest`) made a field at a time as its bytes pass, in
/// pieces of any size: each representation's type, then its bytes, in the content's order. Fed the same fields,
/// it gives the same value whatever the pieces were — what lets a copy read straight into its file be digested
/// on its way there, never held whole.
///
/// The digest: FNV-1a's prime over 8-byte words in four lanes (the words of each 32-byte block go one to each
/// lane, so four multiplications run at once), the lanes, the words left, the tail and each length then mixed
/// into one, so that moving bytes between fields changes it. Not cryptographic.
///
/// A value type: a copy is the digest as it stood (a read that fails is undone by going back to it).
struct ContentDigest: Equatable {
    private var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    /// The lanes of the field under way, from `hash` as it stood when the field began.
    private var lanes: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    /// The field's bytes so far.
    private var fieldCount = 0
    /// Its bytes after its last whole block (fewer than 32), kept until the block is whole or the field ends.
    private var pending: [UInt8] = []
    private var inField = false

    static func == (a: ContentDigest, b: ContentDigest) -> Bool {
        a.hash == b.hash && a.lanes == b.lanes && a.fieldCount == b.fieldCount && a.pending == b.pending && a.inField == b.inField
    }

    /// The digest so far, every field ended.
    var value: UInt64 {
        precondition(!inField, "a digest is read between fields")
        return hash
    }

    @inline(__always) private static func step(_ lane: inout UInt64, _ word: UInt64) {
        lane = (lane ^ word) &* 0x100_0000_01b3
        lane ^= lane >> 32
    }

    /// A whole field.
    mutating func mix(_ bytes: UnsafeRawBufferPointer) {
        begin()
        update(bytes)
        end()
    }

    mutating func mix(_ bytes: [UInt8]) { bytes.withUnsafeBytes { mix($0) } }

    /// A representation's type name, as the field before its bytes.
    mutating func mix(type: PasteboardType) { mix(Array(type.rawValue.utf8)) }

    /// A representation whole: its type, then its bytes.
    mutating func mix(_ representation: Representation) {
        mix(type: representation.type)
        representation.data.withUnsafeBytes { mix($0) }
    }

    /// A field begins.
    mutating func begin() {
        precondition(!inField, "a field begins after the last ended")
        inField = true
        lanes = (hash, hash ^ 1, hash ^ 2, hash ^ 3)
        fieldCount = 0
        pending = []
    }

    /// The field's next bytes.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        precondition(inField, "bytes within a field")
        guard bytes.count > 0 else { return }
        fieldCount += bytes.count
        var start = 0
        if !pending.isEmpty {
            let take = min(32 - pending.count, bytes.count)
            pending += bytes[0..<take]
            start = take
            guard pending.count == 32 else { return }
            pending.withUnsafeBytes { blocks($0) }
            pending = []
        }
        let whole = (bytes.count - start) / 32 * 32
        if whole > 0 { blocks(UnsafeRawBufferPointer(rebasing: bytes[start..<start + whole])) }
        if start + whole < bytes.count { pending = Array(bytes[(start + whole)...]) }
    }

    /// The field is over.
    mutating func end() {
        precondition(inField, "a field ends once")
        inField = false
        if fieldCount >= 32 {
            Self.step(&hash, lanes.0); Self.step(&hash, lanes.1); Self.step(&hash, lanes.2); Self.step(&hash, lanes.3)
        }
        pending.withUnsafeBytes { rest in
            let words = rest.count / 8
            for index in 0..<words { Self.step(&hash, rest.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)) }
            var tail: UInt64 = 0
            for byte in rest[(words * 8)...].reversed() { tail = tail << 8 | UInt64(byte) }
            Self.step(&hash, tail)
        }
        Self.step(&hash, UInt64(fieldCount))
        pending = []
    }

    /// Whole 32-byte blocks (`bytes.count` a multiple of 32) into the lanes.
    private mutating func blocks(_ bytes: UnsafeRawBufferPointer) {
        var (a, b, c, d) = lanes
        var offset = 0
        while offset < bytes.count {
            Self.step(&a, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            Self.step(&b, bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
            Self.step(&c, bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
            Self.step(&d, bytes.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
            offset += 32
        }
        lanes = (a, b, c, d)
    }
}
