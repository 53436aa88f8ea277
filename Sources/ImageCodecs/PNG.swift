import CSpng
import Images

/// PNG through libspng: every colour type and bit depth, palettes, tRNS and interlacing, decoded to 8-bit
/// RGBA; written as 8-bit RGB (opaque pictures) or RGBA.
enum PNG {
    static func decode(_ bytes: [UInt8], limits: ImageLimits) throws(ImageError) -> PixelImage {
        // zlib's Adler-32 of the image data is not checked again: every IDAT chunk's CRC-32 covers the same bytes.
        guard let context = spng_ctx_new(Int32(SPNG_CTX_IGNORE_ADLER32.rawValue)) else { throw ImageError("libspng could not start") }
        defer { spng_ctx_free(context) }
        func check(_ status: Int32, _ what: String) throws(ImageError) {
            if status != 0 { throw ImageError("the PNG cannot be read (\(what): \(String(cString: spng_strerror(status))))") }
        }
        let side = UInt32(min(limits.maximumPixels, Int(Int32.max)))
        try check(spng_set_image_limits(context, side, side), "limits")
        try check(spng_set_chunk_limits(context, limits.maximumChunkBytes, limits.maximumChunkBytes * 4), "limits")
        // CRC errors in critical and ancillary chunks are errors (the default), never guessed around.
        let result: Result<PixelImage, ImageError> = bytes.withUnsafeBytes { buffer in
            do throws(ImageError) {
                try check(spng_set_png_buffer(context, buffer.baseAddress, buffer.count), "buffer")
                var header = spng_ihdr()
                try check(spng_get_ihdr(context, &header), "header")
                try limits.check(width: Int(header.width), height: Int(header.height))
                let count = Int(header.width) * Int(header.height)
                // 8-bit RGB without tRNS (most screenshots) is decoded as it is stored, into the last three
                // quarters of the buffer, and widened to RGBA in place: libspng's own widening is per pixel and
                // slow. Everything else libspng turns into RGBA itself.
                var transparency = spng_trns()
                let plainRGB = header.color_type == UInt8(SPNG_COLOR_TYPE_TRUECOLOR.rawValue) && header.bit_depth == 8
                    && spng_get_trns(context, &transparency) != 0
                let format = Int32((plainRGB ? SPNG_FMT_RGB8 : SPNG_FMT_RGBA8).rawValue)
                var size = 0
                try check(spng_decoded_image_size(context, format, &size), "size")
                guard size == count * (plainRGB ? 3 : 4) else { throw ImageError("the PNG's size does not add up") }
                var status: Int32 = 0
                let pixels = [UInt8](unsafeUninitializedCapacity: count * 4) { out, initialized in
                    let base = out.baseAddress!
                    status = spng_decode_image(context, base + (plainRGB ? count : 0), size, format, Int32(SPNG_DECODE_TRNS.rawValue))
                    if status != 0 { (base).initialize(repeating: 0, count: count * 4) } else if plainRGB {
                        // Pixel i moves from count + 3i to 4i: never past what is still to be read.
                        var from = count, to = 0
                        for _ in 0..<count {
                            let r = base[from], g = base[from + 1], b = base[from + 2]
                            base[to] = r; base[to + 1] = g; base[to + 2] = b; base[to + 3] = 255
                            from += 3
                            to += 4
                        }
                    }
                    initialized = count * 4
                }
                try check(status, "image data")
                return .success(PixelImage(width: Int(header.width), height: Int(header.height), pixels: pixels))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    static func encode(_ image: PixelImage, compressionLevel: Int32) throws(ImageError) -> [UInt8] {
        guard let context = spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else { throw ImageError("libspng could not start") }
        defer { spng_ctx_free(context) }
        func check(_ status: Int32, _ what: String) throws(ImageError) {
            if status != 0 { throw ImageError("the PNG cannot be written (\(what): \(String(cString: spng_strerror(status))))") }
        }
        let sink = ByteSink()
        let unmanaged = Unmanaged.passRetained(sink)
        defer { unmanaged.release() }
        try check(spng_set_png_stream(context, { _, user, source, length in
            Unmanaged<ByteSink>.fromOpaque(user!).takeUnretainedValue().write(source!, length)
            return 0
        }, unmanaged.toOpaque()), "stream")
        try check(spng_set_option(context, SPNG_IMG_COMPRESSION_LEVEL, compressionLevel), "options")
        // Paeth alone: on screenshots as small as trying every filter per row (libspng's default), in half the time.
        try check(spng_set_option(context, SPNG_FILTER_CHOICE, Int32(SPNG_FILTER_CHOICE_PAETH.rawValue)), "options")
        let opaque = image.isOpaque
        var header = spng_ihdr(width: UInt32(image.width), height: UInt32(image.height), bit_depth: 8,
                               color_type: UInt8(opaque ? SPNG_COLOR_TYPE_TRUECOLOR.rawValue : SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue),
                               compression_method: 0, filter_method: 0, interlace_method: 0)
        try check(spng_set_ihdr(context, &header), "header")
        let pixels = opaque ? image.rgbBytes() : image.pixels
        let status = pixels.withUnsafeBytes { buffer in
            spng_encode_image(context, buffer.baseAddress, buffer.count, Int32(SPNG_FMT_PNG.rawValue), Int32(SPNG_ENCODE_FINALIZE.rawValue))
        }
        try check(status, "image data")
        return sink.bytes
    }
}

