// SPDX-License-Identifier: Apache-2.0
import CImageShims
import Images

/// WebP through libwebp: lossy and lossless still pictures (an animation is refused); written lossless
/// (exact, even under transparent pixels) or lossy as the policy says.
enum WebP {
    /// Lossless effort, 0–9: 1 writes a 4K screenshot in a third of ImageMagick's time (its default effort) for
    /// 15 % more bytes; 0 is twice as fast again but writes twice the bytes of the PNG (docs/performance.md).
    static let losslessLevel: Int32 = 1
    /// Lossy effort, 0–6 (the default is 4).
    static let lossyMethod: Int32 = 3

    static func decode(_ bytes: [UInt8], limits: ImageLimits) throws(ImageError) -> PixelImage {
        let webp = try ImageLibraries.webp()
        var features = WebPBitstreamFeatures()
        let status = bytes.withUnsafeBufferPointer { pbi_WebPGetFeatures(webp, $0.baseAddress, $0.count, &features) }
        guard status == VP8_STATUS_OK else { throw ImageError("the WebP header cannot be read (\(describe(status)))") }
        guard features.has_animation == 0 else { throw ImageError("animated WebP is not supported") }
        try limits.check(width: Int(features.width), height: Int(features.height))
        let width = Int(features.width), height = Int(features.height)
        let size = width * height * 4
        var decoded = false
        let pixels = [UInt8](unsafeUninitializedCapacity: size) { out, initialized in
            decoded = bytes.withUnsafeBufferPointer {
                webp.WebPDecodeRGBAInto($0.baseAddress, $0.count, out.baseAddress, size, Int32(width * 4))
            } != nil
            initialized = size
        }
        guard decoded else { throw ImageError("the WebP image data cannot be decoded (truncated or corrupt)") }
        return PixelImage(width: width, height: height, pixels: pixels, fromLossySource: features.format != 2)
    }

    /// Lossless WebP is written from `image`'s own buffer, its RGBA bytes turned in place into libwebp's ARGB
    /// words (B, G, R, A in memory on a little-endian machine), rather than from a copy libwebp would make: a 4K
    /// screenshot's conversion then peaks 32 MiB lower (docs/performance.md). When the caller still holds the
    /// picture, Swift copies the buffer first (copy on write), so nothing the caller sees changes.
    static func encode(_ image: consuming PixelImage, settings: ImageEncodeSettings) throws(ImageError) -> [UInt8] {
        let webp = try ImageLibraries.webp()
        guard image.width <= Int(WEBP_MAX_DIMENSION), image.height <= Int(WEBP_MAX_DIMENSION) else {
            throw ImageError("\(image.width) × \(image.height) pixels do not fit in a WebP (at most \(WEBP_MAX_DIMENSION) a side)")
        }
        var config = WebPConfig()
        guard pbi_WebPConfigInit(webp, &config) != 0 else { throw ImageError("libwebp could not start") }
        if settings.lossless {
            guard webp.WebPConfigLosslessPreset(&config, losslessLevel) != 0 else { throw ImageError("libwebp could not start") }
            config.exact = 1
        } else {
            config.quality = Float(settings.quality)
            config.method = lossyMethod
        }
        var picture = WebPPicture()
        guard pbi_WebPPictureInit(webp, &picture) != 0 else { throw ImageError("libwebp could not start") }
        defer { webp.WebPPictureFree(&picture) }
        picture.width = Int32(image.width)
        picture.height = Int32(image.height)
        picture.use_argb = settings.lossless ? 1 : 0
        var writer = WebPMemoryWriter()
        webp.WebPMemoryWriterInit(&writer)
        defer { webp.WebPMemoryWriterClear(&writer) }
        func encode(_ picture: inout WebPPicture) -> Int32 {
            withUnsafeMutablePointer(to: &writer) { pointer in
                picture.writer = webp.WebPMemoryWrite
                picture.custom_ptr = UnsafeMutableRawPointer(pointer)
                return webp.WebPEncode(&config, &picture)
            }
        }
        let encoded: Int32
        if settings.lossless && UInt32(1).littleEndian == 1 {
            let width = image.width
            encoded = image.pixels.withUnsafeMutableBytes { raw in
                guard let base = raw.baseAddress else { return 0 }
                let bytes = raw.bindMemory(to: UInt8.self)
                var index = 0
                while index < bytes.count {
                    let red = bytes[index]
                    bytes[index] = bytes[index + 2]
                    bytes[index + 2] = red
                    index += 4
                }
                // libwebp reads the words and, with `exact`, leaves them alone; WebPPictureFree frees none of them.
                picture.argb = base.assumingMemoryBound(to: UInt32.self)
                picture.argb_stride = Int32(width)
                defer { picture.argb = nil }
                return encode(&picture)
            }
        } else {
            let imported = image.pixels.withUnsafeBufferPointer { webp.WebPPictureImportRGBA(&picture, $0.baseAddress, Int32(image.width * 4)) }
            guard imported != 0 else { throw ImageError("the picture cannot be handed to libwebp (out of memory)") }
            encoded = encode(&picture)
        }
        guard encoded != 0, let memory = writer.mem else {
            throw ImageError("the WebP cannot be written (libwebp error \(picture.error_code.rawValue))")
        }
        return Array(UnsafeBufferPointer(start: memory, count: writer.size))
    }

    private static func describe(_ status: VP8StatusCode) -> String {
        switch status {
        case VP8_STATUS_OUT_OF_MEMORY: "out of memory"
        case VP8_STATUS_INVALID_PARAM: "invalid parameter"
        case VP8_STATUS_BITSTREAM_ERROR: "bitstream error"
        case VP8_STATUS_UNSUPPORTED_FEATURE: "unsupported feature"
        case VP8_STATUS_NOT_ENOUGH_DATA: "truncated"
        default: "error \(status.rawValue)"
        }
    }
}
