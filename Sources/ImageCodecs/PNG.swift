// SPDX-License-Identifier: Apache-2.0
import CImageShims
import Images
import SystemSupport

/// PNG through libspng: every colour type and bit depth, palettes, tRNS and interlacing, decoded to 8-bit
/// RGBA; written as 8-bit RGB (opaque pictures) or RGBA. The image data of 8-bit RGB and RGBA pictures that are
/// not interlaced is inflated with zlib and unfiltered here (`imageData`), after libspng read the chunks before it.
enum PNG {
    static func decode(_ bytes: [UInt8], limits: ImageLimits) throws(ImageError) -> PixelImage {
        try reading(bytes, limits: limits) { (context, buffer, header, channels) throws(ImageError) -> PixelImage in
            let spng = try ImageLibraries.spng()
            let width = Int(header.width), height = Int(header.height), count = width * height
            if channels != 0 {
                var failure: ImageError? = nil
                // Inflated in place: RGBA at the buffer's start (`height` bytes more), RGB at its end.
                let filteredSize = height * (width * channels + 1)
                let pixels = [UInt8](unsafeUninitializedCapacity: max(count * 4, filteredSize)) { out, initialized in
                    do throws(ImageError) {
                        let base = out.baseAddress!
                        HugePages.advise(base, count: out.count)
                        try imageData(buffer, into: base, width: width, height: height, channels: channels, outputChannels: 4,
                                      filtered: channels == 4 ? base : base + count * 4 - filteredSize) { _ in }
                    } catch {
                        failure = error
                        out.baseAddress!.initialize(repeating: 0, count: count * 4)
                    }
                    initialized = count * 4
                }
                if let failure { throw failure }
                return PixelImage(width: width, height: height, pixels: pixels)
            }
            let format = Int32(SPNG_FMT_RGBA8.rawValue)
            var size = 0
            try check(spng.spng_decoded_image_size(context, format, &size), "size")
            guard size == count * 4 else { throw ImageError("the PNG's size does not add up") }
            var status: Int32 = 0
            let pixels = [UInt8](unsafeUninitializedCapacity: size) { out, initialized in
                status = spng.spng_decode_image(context, out.baseAddress, size, format, Int32(SPNG_DECODE_TRNS.rawValue))
                if status != 0 { out.baseAddress!.initialize(repeating: 0, count: size) }
                initialized = size
            }
            try check(status, "image data")
            return PixelImage(width: width, height: height, pixels: pixels)
        }
    }

    /// Opens `bytes` in a libspng decoder bounded by `limits`, reads its header (its size checked against
    /// `limits`) and every chunk before the image data, and hands `body` the context, the file, the header and
    /// the channels `directChannels` gives. CRC errors in critical and ancillary chunks are errors (libspng's
    /// default), never guessed around; zlib's Adler-32 of the image data is not checked again: every IDAT
    /// chunk's CRC-32 covers the same bytes.
    private static func reading<T>(_ bytes: [UInt8], limits: ImageLimits,
                                   _ body: (OpaquePointer, UnsafeRawBufferPointer, spng_ihdr, Int) throws(ImageError) -> T) throws(ImageError) -> T {
        let spng = try ImageLibraries.spng()
        guard let context = spng.spng_ctx_new(Int32(SPNG_CTX_IGNORE_ADLER32.rawValue)) else { throw ImageError("libspng could not start") }
        defer { spng.spng_ctx_free(context) }
        let side = UInt32(min(limits.maximumPixels, Int(Int32.max)))
        try check(spng.spng_set_image_limits(context, side, side), "limits")
        try check(spng.spng_set_chunk_limits(context, limits.maximumChunkBytes, limits.maximumChunkBytes * 4), "limits")
        let result: Result<T, ImageError> = bytes.withUnsafeBytes { buffer in
            do throws(ImageError) {
                try check(spng.spng_set_png_buffer(context, buffer.baseAddress, buffer.count), "buffer")
                var header = spng_ihdr()
                try check(spng.spng_get_ihdr(context, &header), "header")
                try limits.check(width: Int(header.width), height: Int(header.height))
                return .success(try body(context, buffer, header, try directChannels(context, header)))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private static func check(_ status: Int32, _ what: String) throws(ImageError) {
        guard status != 0 else { return }
        let reason = (try? ImageLibraries.spng())?.spng_strerror(status).map { String(cString: $0) } ?? "error \(status)"
        throw ImageError("the PNG cannot be read (\(what): \(reason))")
    }

    /// 3 or 4 for an 8-bit RGB PNG without tRNS or an 8-bit RGBA PNG, not interlaced (nearly every screenshot),
    /// whose image data `imageData` decodes, twice as fast as libspng; 0 for everything else, which libspng turns
    /// into RGBA itself. Reads and checks every chunk before the image data first (tRNS among them).
    static func directChannels(_ context: OpaquePointer, _ header: spng_ihdr) throws(ImageError) -> Int {
        let spng = try ImageLibraries.spng()
        var transparency = spng_trns()
        let status = spng.spng_get_trns(context, &transparency)
        let noTransparency = status == Int32(SPNG_ECHUNKAVAIL.rawValue)
        if status != 0 && !noTransparency { try check(status, "chunks") }
        guard header.bit_depth == 8 && header.interlace_method == 0 else { return 0 }
        if header.color_type == UInt8(SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue) { return 4 }
        return header.color_type == UInt8(SPNG_COLOR_TYPE_TRUECOLOR.rawValue) && noTransparency ? 3 : 0
    }

    /// What libspng reads of a PNG's header and chunks before its image data, for the PNG → JPEG pipeline:
    /// the size (checked against `limits`) and the channels `directChannels` gives (0: not for the pipeline).
    static func layout(_ bytes: [UInt8], limits: ImageLimits) throws(ImageError) -> (width: Int, height: Int, channels: Int) {
        try reading(bytes, limits: limits) { _, _, header, channels in (Int(header.width), Int(header.height), channels) }
    }

    /// An 8-bit RGB PNG that is not interlaced as a 24-bit BMP, its rows decoded straight into the bitmap's
    /// (bottom-up, B, G, R): the bytes `BMPCodec.encode(decode(bytes))` gives, without the RGBA picture between.
    /// nil for any other PNG.
    static func decodeToBMP(_ bytes: [UInt8], limits: ImageLimits) throws(ImageError) -> [UInt8]? {
        let (width, height, channels) = try layout(bytes, limits: limits)
        guard channels == 3 else { return nil }
        var failure: ImageError? = nil
        let bitmap = try BMPCodec.encode24(width: width, height: height) { pixels, stride in
            failure = bytes.withUnsafeBytes { file -> ImageError? in
                do throws(ImageError) {
                    try imageData(file, into: pixels + (height - 1) * stride, rowStride: -stride, width: width, height: height,
                                  channels: 3, outputChannels: 3, bgr: true) { _ in }
                    return nil
                } catch {
                    return error
                }
            }
            return failure == nil
        }
        if let failure { throw failure }
        return bitmap
    }

    /// Decodes the image data of an 8-bit RGB (`channels` 3) or RGBA (4) PNG that is not interlaced into
    /// `output` (row `r` at `output + r × rowStride`, which may be negative, as in a bottom-up BMP; each row
    /// `width × outputChannels` bytes: RGB, BGR when `bgr`, RGB widened to RGBA, or RGBA), from `file` whose
    /// chunks before the image data libspng has read and checked. Every IDAT's CRC is checked; their data is
    /// inflated at once by libdeflate (Adler-32 checked) and each row unfiltered into the output
    /// (`PNGUnfilter`); data libdeflate refuses (corrupt, or more or less than the rows) is inflated again by
    /// zlib as a stream (raw: its two-byte header checked here, its Adler-32 not), which decodes what is there
    /// and says what is wrong. Data that ends before the last row is refused. `rowsDone` is told how many rows
    /// are complete as they come.
    ///
    /// `filtered`, when given, is where the inflated rows (`height × (width × channels + 1)` bytes) may be put
    /// instead of a buffer of their own: the output's own buffer, decoding in place, at its start when the
    /// output rows are as wide as the filtered ones less their filter byte (RGB, RGBA; the buffer then has
    /// `height` bytes more than the output), or at its end when RGB is widened to RGBA (`PNGUnfilter` writes
    /// each pixel no further than the bytes it has read).
    static func imageData(_ file: UnsafeRawBufferPointer, into output: UnsafeMutablePointer<UInt8>, rowStride: Int? = nil,
                          width: Int, height: Int, channels: Int, outputChannels: Int, bgr: Bool = false,
                          filtered: UnsafeMutablePointer<UInt8>? = nil, rowsDone: (Int) -> Void) throws(ImageError) {
        let zlib = try ImageLibraries.zlib(), deflate = try ImageLibraries.deflate()
        func failed(_ why: String) -> ImageError { ImageError("the PNG cannot be read (image data: \(why))") }
        let bytes = file.bindMemory(to: UInt8.self)
        func be32(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
        // The IDAT chunks (consecutive), their CRCs checked; a chunk cut short ends them.
        var pieces: [(start: Int, count: Int)] = []
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = be32(offset)
            guard length <= 0x7FFF_FFFF, length <= bytes.count - offset - 12 else { break }
            if be32(offset + 4) == 0x4944_4154 {   // IDAT
                guard UInt32(zlib.crc32(0, bytes.baseAddress! + offset + 4, UInt32(length + 4))) == UInt32(be32(offset + 8 + length)) else {
                    throw failed("CRC mismatch")
                }
                pieces.append((offset + 8, length))
            } else if !pieces.isEmpty {
                break
            }
            offset += 12 + length
        }
        let rowBytes = width * channels + 1
        let outputRow = rowStride ?? width * outputChannels
        func unfilter(_ at: UnsafePointer<UInt8>, row: Int) throws(ImageError) {
            let previous = row == 0 ? nil : UnsafePointer(output + (row - 1) * outputRow)
            guard PNGUnfilter.row(filter: at[0], filtered: at + 1, previous: previous, output: output + row * outputRow,
                                  width: width, channels: channels, outputChannels: outputChannels, bgr: bgr) else {
                throw failed("filter type \(at[0])")
            }
        }

        // At once, with libdeflate: five times zlib's speed on a 4K screenshot (docs/performance.md).
        if let decompressor = deflate.libdeflate_alloc_decompressor() {
            defer { deflate.libdeflate_free_decompressor(decompressor) }
            let size = rowBytes * height
            let own = filtered == nil ? UnsafeMutablePointer<UInt8>.allocate(capacity: size) : nil
            if let own { HugePages.advise(own, count: size) }
            defer { own?.deallocate() }
            let target = filtered ?? own!
            let total = pieces.reduce(0) { $0 + $1.count }
            var status = LIBDEFLATE_BAD_DATA
            if pieces.count == 1 {
                status = deflate.libdeflate_zlib_decompress(decompressor, bytes.baseAddress! + pieces[0].start, total, target, size, nil)
            } else if pieces.count > 1 {
                let joined = UnsafeMutablePointer<UInt8>.allocate(capacity: total)
                var at = 0
                for piece in pieces {
                    (joined + at).initialize(from: bytes.baseAddress! + piece.start, count: piece.count)
                    at += piece.count
                }
                status = deflate.libdeflate_zlib_decompress(decompressor, joined, total, target, size, nil)
                joined.deallocate()
            }
            if status == LIBDEFLATE_SUCCESS {
                for row in 0..<height {
                    try unfilter(target + row * rowBytes, row: row)
                    if row % 16 == 15 || row == height - 1 { rowsDone(row + 1) }
                }
                return
            }
        }

        // As a stream, with zlib, a batch of rows at a time.
        let batchRows = max(1, (256 << 10) / rowBytes)
        let capacity = batchRows * rowBytes
        var stream = z_stream()
        guard zlib.inflateInit2_(&stream, -MAX_WBITS, zlib.zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw ImageError("zlib could not start")
        }
        defer { _ = zlib.inflateEnd(&stream) }
        let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { scratch.deallocate() }
        var row = 0, filled = 0
        var zlibHeader: [UInt8] = []
        pieces: for piece in pieces {
            var data = bytes.baseAddress! + piece.start
            var remaining = piece.count
            while zlibHeader.count < 2 && remaining > 0 {
                zlibHeader.append(data[0])
                data += 1
                remaining -= 1
                if zlibHeader.count == 2 {
                    let cmf = zlibHeader[0], flags = zlibHeader[1]
                    guard cmf & 0x0F == 8, cmf >> 4 <= 7, (Int(cmf) << 8 | Int(flags)) % 31 == 0, flags & 0x20 == 0 else {
                        throw failed("not a zlib stream")
                    }
                }
            }
            stream.next_in = UnsafeMutablePointer(mutating: data)
            stream.avail_in = UInt32(remaining)
            while stream.avail_in > 0 && row < height {
                stream.next_out = scratch + filled
                stream.avail_out = UInt32(capacity - filled)
                let status = zlib.inflate(&stream, Z_NO_FLUSH)
                filled = capacity - Int(stream.avail_out)
                var at = 0
                while filled - at >= rowBytes && row < height {
                    try unfilter(scratch + at, row: row)
                    at += rowBytes
                    row += 1
                }
                if at > 0 { rowsDone(row) }
                // The part of a row left over is shorter than a row, so it never overlaps where it moves to.
                if at > 0 && filled > at { scratch.update(from: scratch + at, count: filled - at) }
                filled -= at
                if status == Z_STREAM_END { break pieces }
                guard status == Z_OK else { throw failed(stream.msg.map { String(cString: $0) } ?? "zlib error \(status)") }
            }
            if row == height { break }
        }
        if row < height { throw failed("truncated") }
    }

    static func encode(_ image: PixelImage, compressionLevel: Int32) throws(ImageError) -> [UInt8] {
        let spng = try ImageLibraries.spng()
        guard let context = spng.spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else { throw ImageError("libspng could not start") }
        defer { spng.spng_ctx_free(context) }
        func check(_ status: Int32, _ what: String) throws(ImageError) {
            if status != 0 { throw ImageError("the PNG cannot be written (\(what): \(spng.spng_strerror(status).map { String(cString: $0) } ?? "error \(status)"))") }
        }
        let sink = ByteSink()
        let unmanaged = Unmanaged.passRetained(sink)
        defer { unmanaged.release() }
        try check(spng.spng_set_png_stream(context, { _, user, source, length in
            Unmanaged<ByteSink>.fromOpaque(user!).takeUnretainedValue().write(source!, length)
            return 0
        }, unmanaged.toOpaque()), "stream")
        try check(spng.spng_set_option(context, SPNG_IMG_COMPRESSION_LEVEL, compressionLevel), "options")
        // Paeth alone: on screenshots as small as trying every filter per row (libspng's default), in half the time.
        try check(spng.spng_set_option(context, SPNG_FILTER_CHOICE, Int32(SPNG_FILTER_CHOICE_PAETH.rawValue)), "options")
        let opaque = image.isOpaque
        var header = spng_ihdr(width: UInt32(image.width), height: UInt32(image.height), bit_depth: 8,
                               color_type: UInt8(opaque ? SPNG_COLOR_TYPE_TRUECOLOR.rawValue : SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue),
                               compression_method: 0, filter_method: 0, interlace_method: 0)
        try check(spng.spng_set_ihdr(context, &header), "header")
        let pixels = opaque ? image.rgbBytes() : image.pixels
        let status = pixels.withUnsafeBytes { buffer in
            spng.spng_encode_image(context, buffer.baseAddress, buffer.count, Int32(SPNG_FMT_PNG.rawValue), Int32(SPNG_ENCODE_FINALIZE.rawValue))
        }
        try check(status, "image data")
        return sink.bytes
    }
}

