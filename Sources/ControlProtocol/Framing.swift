// SPDX-License-Identifier: Apache-2.0
/// Builds frames: a u32 little-endian body length, then the body.
public enum FrameEncoder {
    /// Size of the length header in front of every body.
    public static let headerLength = 4

    /// `body` with its length header in front.
    public static func frame(_ body: [UInt8]) -> [UInt8] {
        precondition(body.count <= Int(UInt32.max), "a frame body must fit a u32 length")
        var frame: [UInt8] = []
        frame.reserveCapacity(headerLength + body.count)
        let length = UInt32(body.count)
        for index in 0..<4 { frame.append(UInt8(truncatingIfNeeded: length >> (8 * index))) }
        frame.append(contentsOf: body)
        return frame
    }
}

/// Splits a byte stream into frame bodies. Feed it whatever `read` returned; take out complete bodies.
///
/// Every header is checked as soon as its 4 bytes arrive: one announcing more than
/// `maximumFrameLength` fails the stream before any of that body is buffered. Frames completed before
/// the bad header are still returned; then `nextFrame()` throws `frameTooLarge` every time and `append`
/// discards input (the stream cannot be resynchronised; close the connection).
///
/// Memory follows the bytes that arrived, never what a header announced: the buffer grows by doubling,
/// capped at the end of the frame being received — and once a quarter of the frame has arrived, the rest
/// is reserved at once — so a peer announcing 300 MiB and sending 10 bytes costs a few bytes (a daemon with
/// hundreds of such peers does not reserve their announced sizes). A large frame that fills the buffer is
/// handed out as the buffer itself, not copied.
/// Buffering is amortised O(n): doubling, and consumed bytes dropped in bulk, copy a 64 MiB frame fed in
/// 64 KiB chunks a constant number of times.
public struct FrameDecoder: Sendable {
    public let maximumFrameLength: Int
    private var buffer: [UInt8] = []
    /// Index in `buffer` of the first byte not yet returned.
    private var start = 0
    /// Index in `buffer` where the first incomplete frame begins; frames in `start..<boundary` are complete.
    private var boundary = 0
    private var failure: ControlProtocolError?

    /// Above this capacity, an emptied buffer is released rather than kept (the daemon stays small when idle).
    private static let retainedCapacity = 256 << 10
    private static let headerLength = FrameEncoder.headerLength

    public init(maximumFrameLength: Int = ControlLimits.defaultMaximumFrameLength) {
        precondition(maximumFrameLength >= 0 && maximumFrameLength <= Int(UInt32.max))
        self.maximumFrameLength = maximumFrameLength
    }

    /// Bytes received but not yet returned as frames.
    public var bufferedByteCount: Int { buffer.count - start }

    /// Bytes of memory the buffer holds now (its capacity): about what arrived, at most twice that.
    public var reservedByteCount: Int { buffer.capacity }

    /// Whether a frame has begun but not ended (at end of stream this means the peer cut it short).
    public var hasPartialFrame: Bool { buffer.count > boundary }

    /// Adds received bytes.
    public mutating func append<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        append(ArraySlice(bytes))
    }

    /// Adds received bytes.
    public mutating func append(_ bytes: [UInt8]) {
        append(bytes[...])
    }

    /// Adds received bytes. The one implementation, over a concrete type: the generic `append` called from
    /// another module ran unspecialised, its `Array.append(contentsOf:)` looking up associated types by
    /// mangled name at every start of `pb` (1.4 % of its samples).
    public mutating func append(_ bytes: ArraySlice<UInt8>) {
        var rest = bytes
        while !rest.isEmpty && failure == nil {
            let pending = buffer.count - boundary
            let wanted: Int
            if pending < Self.headerLength {
                wanted = Self.headerLength - pending
            } else {
                wanted = Self.headerLength + length(at: boundary) - pending
            }
            let take = rest.prefix(wanted)
            makeRoom(for: take.count)
            buffer.append(contentsOf: take)
            rest = rest[take.endIndex...]
            advanceBoundary()
        }
    }

    /// The next complete frame body, or nil until more bytes arrive.
    /// Throws `ControlProtocolError.frameTooLarge` once a header announcing too much has been seen.
    public mutating func nextFrame() throws -> [UInt8]? {
        guard start < boundary else {
            if let failure { throw failure }
            return nil
        }
        let length = length(at: start)
        let bodyStart = start + Self.headerLength
        if start == 0 && bodyStart + length == buffer.count && length >= Self.retainedCapacity {
            // A large frame that is all the buffer holds (a big copy): the buffer itself becomes the body,
            // its header shifted out in place, rather than being copied.
            var body = buffer
            buffer = []
            start = 0
            boundary = 0
            body.removeSubrange(0..<Self.headerLength)
            return body
        }
        let body = Array(buffer[bodyStart..<bodyStart + length])
        start = bodyStart + length
        if start == buffer.count {
            if buffer.capacity > Self.retainedCapacity {
                buffer = []
            } else {
                buffer.removeAll(keepingCapacity: true)
            }
            start = 0
            boundary = 0
        }
        return body
    }

    /// Moves `boundary` past every frame that is now complete; validates each header as it completes.
    private mutating func advanceBoundary() {
        while buffer.count - boundary >= Self.headerLength {
            let length = length(at: boundary)
            guard length <= maximumFrameLength else {
                failure = .frameTooLarge(length: length, maximum: maximumFrameLength)
                buffer.removeSubrange(boundary...)
                return
            }
            let total = Self.headerLength + length
            if buffer.count - boundary >= total {
                boundary += total
                continue
            }
            return
        }
    }

    /// Ensures `count` more bytes fit: drops what was already returned, then at least doubles the
    /// capacity, but never past the end of the frame being received (`append` never adds beyond it).
    private mutating func makeRoom(for count: Int) {
        guard buffer.count + count > buffer.capacity else { return }
        if start > 0 {
            buffer.removeSubrange(0..<start)
            boundary -= start
            start = 0
            if buffer.count + count <= buffer.capacity { return }
        }
        let needed = buffer.count + count
        let frameEnd = buffer.count - boundary >= Self.headerLength
            ? boundary + Self.headerLength + length(at: boundary) : needed
        // Doubling, but once a quarter of the frame has arrived the rest is reserved at once: a large copy
        // costs at most 1.25 times its size while it arrives (not 1.5 at the last doubling), and a peer must
        // have sent a quarter of what it announced before that much is reserved.
        let arrived = buffer.count - boundary
        let target = arrived * 4 >= frameEnd - boundary ? frameEnd : min(frameEnd, buffer.capacity * 2)
        buffer.reserveCapacity(max(needed, target))
    }

    private func length(at index: Int) -> Int {
        var length = 0
        for byte in 0..<Self.headerLength { length |= Int(buffer[index + byte]) << (8 * byte) }
        return length
    }
}

extension FrameDecoder {
    /// Removes and returns every byte received but not yet returned as a frame, leaving the decoder
    /// empty: for a reader that takes over the stream itself after some frames (a streamed `read`
    /// answer). Complete frames not yet taken are part of what is returned.
    public mutating func takeBufferedBytes() -> [UInt8] {
        let rest = Array(buffer[start...])
        buffer = []
        start = 0
        boundary = 0
        return rest
    }
}
