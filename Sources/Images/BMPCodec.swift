// SPDX-License-Identifier: Apache-2.0
/// Windows bitmaps, read and written in Swift (no C library is needed for so simple a format).
///
/// Reads BITMAPCOREHEADER, BITMAPINFOHEADER and its V2–V5 successors: 1, 4 and 8 bits with a palette, 16 and
/// 32 bits as BI_RGB or BI_BITFIELDS (alpha from a V3+ alpha mask, or from a V4/V5 header's 32-bit BI_RGB
/// pixels unless every alpha byte is zero), 24 bits; bottom-up and top-down. RLE and embedded JPEG/PNG are
/// refused with that reason. Writes 24-bit BI_RGB, bottom-up, BITMAPINFOHEADER: what every reader takes
/// (the caller flattens alpha onto white first).
public enum BMPCodec {
    struct Header {
        var dataOffset: Int
        var headerSize: Int
        var width: Int
        var height: Int
        var topDown: Bool
        var bitsPerPixel: Int
        var compression: UInt32
        var colorsUsed: Int
        /// Red, green, blue, alpha masks (BI_BITFIELDS, or the defaults for BI_RGB 16/32 bits).
        var masks: [UInt32]?

        init(_ r: ByteReader) throws(ImageError) {
            guard r.count >= 26 else { throw .truncated(.bmp) }
            dataOffset = Int(try r.u32le(10))
            headerSize = Int(try r.u32le(14))
            switch headerSize {
            case 12:
                width = Int(try r.u16le(18))
                height = Int(try r.u16le(20))
                topDown = false
                bitsPerPixel = Int(try r.u16le(24))
                compression = 0
                colorsUsed = 0
            case 40, 52, 56, 64, 108, 124:
                guard r.count >= 14 + 40 else { throw .truncated(.bmp) }
                width = Int(try r.i32le(18))
                let rawHeight = try r.i32le(22)
                guard rawHeight != Int32.min else { throw ImageError("the BMP's height is out of range") }
                height = Int(abs(rawHeight))
                topDown = rawHeight < 0
                bitsPerPixel = Int(try r.u16le(28))
                compression = try r.u32le(30)
                colorsUsed = Int(try r.u32le(46))
            default:
                throw ImageError("the BMP has an unknown header of \(headerSize) bytes")
            }
            switch compression {
            case 0: break
            case 3, 6:
                // Masks follow a 40-byte header, or are part of a longer one.
                let alpha = compression == 6 || headerSize >= 56
                var list: [UInt32] = []
                for index in 0..<(alpha ? 4 : 3) { list.append(try r.u32le(14 + 40 + index * 4)) }
                if !alpha { list.append(0) }
                masks = list
            case 1, 2: throw ImageError("RLE-compressed BMP is not supported")
            case 4, 5: throw ImageError("BMP with embedded JPEG or PNG data is not supported")
            default: throw ImageError("the BMP has an unknown compression \(compression)")
            }
            if compression == 0 && headerSize >= 56 && bitsPerPixel == 32 {
                // V3+ headers carry an alpha mask even for BI_RGB.
                let alpha = (try? r.u32le(14 + 52)) ?? 0
                masks = [0x00FF_0000, 0x0000_FF00, 0x0000_00FF, alpha == 0 ? 0xFF00_0000 : alpha]
            }
        }
    }

    /// Decodes a BMP; the pixel cap is checked from its header before anything is allocated.
    public static func decode(_ bytes: [UInt8], limits: ImageLimits) throws(ImageError) -> PixelImage {
        let r = ByteReader(bytes)
        let h = try Header(r)
        try limits.check(width: h.width, height: h.height)
        guard [1, 4, 8, 16, 24, 32].contains(h.bitsPerPixel) else {
            throw ImageError("the BMP has \(h.bitsPerPixel) bits per pixel (1, 4, 8, 16, 24 or 32 are read)")
        }
        if h.masks != nil && h.bitsPerPixel != 16 && h.bitsPerPixel != 32 {
            throw ImageError("the BMP has bit-field masks with \(h.bitsPerPixel) bits per pixel")
        }
        // The palette: after the header (and a 40-byte header's masks), 4 bytes per colour (3 for core headers).
        var palette: [UInt32] = []
        if h.bitsPerPixel <= 8 {
            let entrySize = h.headerSize == 12 ? 3 : 4
            let maskBytes = h.headerSize == 40 && h.compression == 3 ? 12 : (h.headerSize == 40 && h.compression == 6 ? 16 : 0)
            let start = 14 + h.headerSize + maskBytes
            let available = max(0, (min(h.dataOffset, bytes.count) - start) / entrySize)
            let wanted = h.colorsUsed == 0 ? 1 << h.bitsPerPixel : min(h.colorsUsed, 1 << h.bitsPerPixel)
            let count = min(wanted, available)
            guard count > 0 else { throw ImageError("the BMP's palette is missing") }
            for index in 0..<count {
                let o = start + index * entrySize
                palette.append(UInt32(bytes[o + 2]) | UInt32(bytes[o + 1]) << 8 | UInt32(bytes[o]) << 16 | 0xFF00_0000)
            }
        }
        let stride = ((h.bitsPerPixel * h.width + 31) / 32) * 4
        let (size, overflow) = stride.multipliedReportingOverflow(by: h.height)
        guard !overflow, h.dataOffset >= 14 + h.headerSize, h.dataOffset <= bytes.count, bytes.count - h.dataOffset >= size else {
            throw .truncated(.bmp)
        }
        let masks = h.masks ?? (h.bitsPerPixel == 16 ? [0x7C00, 0x03E0, 0x001F, 0] : [0x00FF_0000, 0x0000_FF00, 0x0000_00FF, 0])
        let channels = masks.map(Channel.init)
        var badIndex: Int?
        var anyAlpha = false
        let width = h.width, height = h.height, bits = h.bitsPerPixel
        let pixels = [UInt8](unsafeUninitializedCapacity: width * height * 4) { out, initialized in
            bytes.withUnsafeBufferPointer { input in
                for y in 0..<height {
                    let row = h.dataOffset + (h.topDown ? y : height - 1 - y) * stride
                    var o = y * width * 4
                    for x in 0..<width {
                        var rgba: (UInt8, UInt8, UInt8, UInt8)
                        switch bits {
                        case 24:
                            let p = row + x * 3
                            rgba = (input[p + 2], input[p + 1], input[p], 255)
                        case 16, 32:
                            let p = row + x * (bits / 8)
                            var value = UInt32(input[p]) | UInt32(input[p + 1]) << 8
                            if bits == 32 { value |= UInt32(input[p + 2]) << 16 | UInt32(input[p + 3]) << 24 }
                            let alpha = channels[3].mask == 0 ? 255 : channels[3].value(value)
                            if alpha != 0 { anyAlpha = true }
                            rgba = (channels[0].value(value), channels[1].value(value), channels[2].value(value), alpha)
                        default:
                            let bit = x * bits
                            let byte = input[row + bit / 8]
                            let index = Int(byte >> UInt8(8 - bits - bit % 8)) & ((1 << bits) - 1)
                            if index >= palette.count {
                                if badIndex == nil { badIndex = index }
                                rgba = (0, 0, 0, 255)
                            } else {
                                let c = palette[index]
                                rgba = (UInt8(c & 0xFF), UInt8(c >> 8 & 0xFF), UInt8(c >> 16 & 0xFF), 255)
                            }
                        }
                        out[o] = rgba.0; out[o + 1] = rgba.1; out[o + 2] = rgba.2; out[o + 3] = rgba.3
                        o += 4
                    }
                }
            }
            initialized = width * height * 4
        }
        if let badIndex {
            throw ImageError("the BMP uses palette index \(badIndex), but its palette has \(palette.count) colours")
        }
        var image = PixelImage(width: width, height: height, pixels: pixels)
        if channels[3].mask != 0 && !anyAlpha {
            // Every alpha byte zero: the writer did not mean transparency (Windows leaves it so), as browsers read it.
            image.pixels.withUnsafeMutableBufferPointer { buffer in
                var index = 3
                while index < buffer.count { buffer[index] = 255; index += 4 }
            }
        }
        return image
    }

    /// One colour channel of a bit-field mask, scaled to 8 bits.
    private struct Channel {
        let mask: UInt32
        let shift: UInt32
        let maximum: UInt32

        init(_ mask: UInt32) {
            self.mask = mask
            shift = mask == 0 ? 0 : UInt32(mask.trailingZeroBitCount)
            maximum = mask == 0 ? 0 : mask >> shift
        }

        func value(_ pixel: UInt32) -> UInt8 {
            guard maximum > 0 else { return 0 }
            let raw = (pixel & mask) >> shift
            return maximum == 255 ? UInt8(raw) : UInt8((UInt64(raw) * 255 + UInt64(maximum) / 2) / UInt64(maximum))
        }
    }

    /// A 24-bit bottom-up BMP of `image`'s colour (its alpha is ignored: flatten it first).
    public static func encode(_ image: PixelImage) throws(ImageError) -> [UInt8] {
        try encode24(width: image.width, height: image.height) { out, stride in
            image.pixels.withUnsafeBufferPointer { input in
                for y in 0..<image.height {
                    var o = (image.height - 1 - y) * stride
                    var p = y * image.width * 4
                    for _ in 0..<image.width {
                        out[o] = input[p + 2]; out[o + 1] = input[p + 1]; out[o + 2] = input[p]
                        o += 3
                        p += 4
                    }
                }
            }
            return true
        }!   // the rows above are always written
    }

    /// A 24-bit bottom-up BMP `width` × `height` whose rows `fill` writes: it gets the first byte of the pixel
    /// data (the bottom row) and the row stride (rows padded to 4 bytes; the padding is zeroed here), writes
    /// every row in B, G, R order, and returns false to give up (nil then).
    public static func encode24(width: Int, height: Int,
                                fill: (UnsafeMutablePointer<UInt8>, Int) -> Bool) throws(ImageError) -> [UInt8]? {
        let stride = (width * 3 + 3) & ~3
        let (size, overflow) = stride.multipliedReportingOverflow(by: height)
        guard !overflow, size <= Int(Int32.max) - 54, width <= Int(Int32.max), height <= Int(Int32.max) else {
            throw ImageError("\(width) × \(height) pixels do not fit in a BMP")
        }
        let total = 54 + size
        var filled = true
        let bytes = [UInt8](unsafeUninitializedCapacity: total) { out, initialized in
            func put32(_ value: Int, at offset: Int) {
                for index in 0..<4 { out[offset + index] = UInt8(truncatingIfNeeded: value >> (index * 8)) }
            }
            for index in 0..<54 { out[index] = 0 }
            out[0] = 0x42; out[1] = 0x4D
            put32(total, at: 2)
            put32(54, at: 10)
            put32(40, at: 14)
            put32(width, at: 18)
            put32(height, at: 22)
            out[26] = 1
            out[28] = 24
            put32(size, at: 34)
            put32(2835, at: 38)   // 72 dpi
            put32(2835, at: 42)
            let pixels = out.baseAddress! + 54
            if stride > width * 3 {
                for row in 0..<height { (pixels + row * stride + width * 3).initialize(repeating: 0, count: stride - width * 3) }
            }
            filled = fill(pixels, stride)
            if !filled { pixels.initialize(repeating: 0, count: size) }
            initialized = total
        }
        return filled ? bytes : nil
    }
}
