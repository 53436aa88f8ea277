// SPDX-License-Identifier: Apache-2.0
/// What a picture's header says, read without decoding: its format and size, and for JPEG the EXIF
/// orientation and whether CMYK samples are stored inverted (Adobe). Cheap and bounded: the pixel cap is
/// checked from it before any decoder allocates, and history and `pb watch` describe images with it.
public struct ImageHeader: Equatable, Sendable {
    public var format: ImageFormat
    public var width: Int
    public var height: Int
    /// EXIF orientation (1–8; 1 is upright) for JPEG, 1 for the other formats.
    public var orientation: Int = 1
    /// JPEG: an Adobe APP14 marker is present (CMYK samples are stored inverted).
    public var adobe = false

    public init(format: ImageFormat, width: Int, height: Int, orientation: Int = 1, adobe: Bool = false) {
        self.format = format
        self.width = width
        self.height = height
        self.orientation = orientation
        self.adobe = adobe
    }

    /// The width and height as seen once the orientation is applied (5–8 swap them).
    public var displayedSize: (width: Int, height: Int) { orientation >= 5 ? (height, width) : (width, height) }

    /// "image/png 3840×2160": the type and the displayed size.
    public var summary: String {
        let size = displayedSize
        return "\(format.mimeType) \(size.width)×\(size.height)"
    }

    /// Reads the header of `bytes`, whatever format their magic bytes say. Throws for data that is no
    /// picture pasteboard reads, or whose header is truncated or malformed.
    public static func read(_ bytes: [UInt8]) throws(ImageError) -> ImageHeader {
        guard let format = ImageFormat.sniff(bytes) else {
            throw ImageError("not a PNG, JPEG, GIF, BMP, TIFF or WebP picture")
        }
        var reader = ByteReader(bytes)
        switch format {
        case .png: return try png(&reader)
        case .jpeg: return try jpeg(&reader)
        case .gif: return try gif(&reader)
        case .bmp: return try bmp(&reader)
        case .tiff: return try tiff(&reader)
        case .webp: return try webp(&reader)
        }
    }

    private static func png(_ r: inout ByteReader) throws(ImageError) -> ImageHeader {
        guard r.count >= 24, r.bytes(12, 4) == Array("IHDR".utf8) else { throw ImageError("the PNG has no IHDR chunk first") }
        return ImageHeader(format: .png, width: Int(try r.u32be(16)), height: Int(try r.u32be(20)))
    }

    private static func gif(_ r: inout ByteReader) throws(ImageError) -> ImageHeader {
        guard r.count >= 13 else { throw .truncated(.gif) }
        return ImageHeader(format: .gif, width: Int(try r.u16le(6)), height: Int(try r.u16le(8)))
    }

    private static func bmp(_ r: inout ByteReader) throws(ImageError) -> ImageHeader {
        let info = try BMPCodec.Header(r)
        return ImageHeader(format: .bmp, width: info.width, height: info.height)
    }

    private static func webp(_ r: inout ByteReader) throws(ImageError) -> ImageHeader {
        guard r.count >= 30 else { throw .truncated(.webp) }
        let chunk = r.bytes(12, 4)
        if chunk == Array("VP8 ".utf8) {
            guard r.bytes(23, 3) == [0x9D, 0x01, 0x2A] else { throw ImageError("the WebP VP8 frame has no start code") }
            return ImageHeader(format: .webp, width: Int(try r.u16le(26) & 0x3FFF), height: Int(try r.u16le(28) & 0x3FFF))
        }
        if chunk == Array("VP8L".utf8) {
            guard try r.u8(20) == 0x2F else { throw ImageError("the WebP lossless stream has no signature") }
            let bits = try r.u32le(21)
            return ImageHeader(format: .webp, width: Int(bits & 0x3FFF) + 1, height: Int((bits >> 14) & 0x3FFF) + 1)
        }
        if chunk == Array("VP8X".utf8) {
            let width = Int(try r.u8(24)) | Int(try r.u8(25)) << 8 | Int(try r.u8(26)) << 16
            let height = Int(try r.u8(27)) | Int(try r.u8(28)) << 8 | Int(try r.u8(29)) << 16
            return ImageHeader(format: .webp, width: width + 1, height: height + 1)
        }
        throw ImageError("the WebP has no VP8, VP8L or VP8X chunk first")
    }

    // MARK: - JPEG: markers up to the first frame header

    private static func jpeg(_ r: inout ByteReader) throws(ImageError) -> ImageHeader {
        var offset = 2
        var orientation = 1
        var adobe = false
        // At most 1000 markers before the frame: a longer list is not a picture but a trap.
        for _ in 0..<1000 {
            guard offset + 4 <= r.count else { throw .truncated(.jpeg) }
            guard try r.u8(offset) == 0xFF else { throw ImageError("the JPEG has no marker where one belongs") }
            var marker = try r.u8(offset + 1)
            while marker == 0xFF {   // fill bytes
                offset += 1
                guard offset + 4 <= r.count else { throw .truncated(.jpeg) }
                marker = try r.u8(offset + 1)
            }
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { offset += 2; continue }
            let length = Int(try r.u16be(offset + 2))
            guard length >= 2 else { throw ImageError("the JPEG has a marker segment shorter than its length field") }
            let body = offset + 4
            switch marker {
            case 0xC0...0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                guard body + 5 <= r.count else { throw .truncated(.jpeg) }
                let height = Int(try r.u16be(body + 1)), width = Int(try r.u16be(body + 3))
                return ImageHeader(format: .jpeg, width: width, height: height, orientation: orientation, adobe: adobe)
            case 0xE1 where length >= 8 && r.bytes(body, 6) == Array("Exif".utf8) + [0, 0]:
                orientation = Exif.orientation(r.slice(body + 6, min(length - 8, r.count - body - 6))) ?? orientation
            case 0xEE where length >= 7 && r.bytes(body, 5) == Array("Adobe".utf8):
                adobe = true
            case 0xD9, 0xDA:
                throw ImageError("the JPEG has no frame header before its image data")
            default: break
            }
            offset = body + length - 2
        }
        throw ImageError("the JPEG has too many marker segments before its frame header")
    }

    // MARK: - TIFF: the first directory's width and length

    private static func tiff(_ r: inout ByteReader) throws(ImageError) -> ImageHeader {
        guard let directory = TIFFDirectory(r) else { throw .tiffDirectoryMissing }
        guard let width = directory.value(of: 256), let height = directory.value(of: 257) else {
            throw ImageError("the TIFF's first directory gives no width or height")
        }
        return ImageHeader(format: .tiff, width: width, height: height)
    }
}

/// The first image file directory of a TIFF (or of EXIF data, which is a TIFF): its SHORT and LONG tags. A tag
/// given twice keeps its first value, as libtiff reads it (found by ImageFuzz: a second ImageWidth made the
/// header's width disagree with the decoder's).
struct TIFFDirectory {
    private var values: [Int: Int] = [:]

    /// Nil unless the header and the first directory's entries are all within `r`; at most 1000 entries.
    init?(_ r: ByteReader) {
        guard r.count >= 8 else { return nil }
        let little = r.bytes(0, 2) == [0x49, 0x49]
        func u16(_ o: Int) -> Int? { (try? little ? r.u16le(o) : r.u16be(o)).map(Int.init) }
        func u32(_ o: Int) -> Int? { (try? little ? r.u32le(o) : r.u32be(o)).map(Int.init) }
        guard let start = u32(4), let count = u16(start), count <= 1000 else { return nil }
        for index in 0..<count {
            let entry = start + 2 + index * 12
            guard let tag = u16(entry), let type = u16(entry + 2), let items = u32(entry + 4), entry + 12 <= r.count else { return nil }
            guard items == 1, values[tag] == nil else { continue }
            if type == 3, let value = u16(entry + 8) { values[tag] = value }
            if type == 4, let value = u32(entry + 8) { values[tag] = value }
        }
    }

    func value(of tag: Int) -> Int? { values[tag] }
}

/// EXIF metadata (a TIFF inside a JPEG's APP1 segment).
enum Exif {
    /// Tag 0x0112 of the first directory when it is 1–8.
    static func orientation(_ tiff: ByteReader) -> Int? {
        guard let value = TIFFDirectory(tiff)?.value(of: 0x0112), (1...8).contains(value) else { return nil }
        return value
    }
}

/// Bounds-checked reads of little- and big-endian integers from a byte array.
struct ByteReader {
    let base: [UInt8]
    let start: Int
    let count: Int

    init(_ bytes: [UInt8]) {
        base = bytes
        start = 0
        count = bytes.count
    }

    private init(base: [UInt8], start: Int, count: Int) {
        self.base = base
        self.start = start
        self.count = count
    }

    /// A reader over `length` bytes from `offset` (clamped to what there is).
    func slice(_ offset: Int, _ length: Int) -> ByteReader {
        let from = min(max(0, offset), count)
        return ByteReader(base: base, start: start + from, count: max(0, min(length, count - from)))
    }

    /// Up to `length` bytes from `offset` (fewer at the end; none outside).
    func bytes(_ offset: Int, _ length: Int) -> [UInt8] {
        guard offset >= 0, offset < count, length > 0 else { return [] }
        return Array(base[(start + offset)..<(start + min(count, offset + length))])
    }

    func u8(_ offset: Int) throws(ImageError) -> UInt8 {
        guard offset >= 0, offset < count else { throw .headerTruncated }
        return base[start + offset]
    }
    func u16le(_ o: Int) throws(ImageError) -> UInt16 { UInt16(try u8(o)) | UInt16(try u8(o + 1)) << 8 }
    func u16be(_ o: Int) throws(ImageError) -> UInt16 { UInt16(try u8(o)) << 8 | UInt16(try u8(o + 1)) }
    func u32le(_ o: Int) throws(ImageError) -> UInt32 { UInt32(try u16le(o)) | UInt32(try u16le(o + 2)) << 16 }
    func u32be(_ o: Int) throws(ImageError) -> UInt32 { UInt32(try u16be(o)) << 16 | UInt32(try u16be(o + 2)) }
    func i32le(_ o: Int) throws(ImageError) -> Int32 { Int32(bitPattern: try u32le(o)) }
}
