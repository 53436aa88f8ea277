// SPDX-License-Identifier: Apache-2.0
import CImageShims
import Images

/// JPEG through TurboJPEG: baseline and progressive, grayscale, RGB, CMYK and YCCK, decoded to RGBA; written as
/// baseline YCbCr, 4:4:4 or 4:2:0 as the policy says. The caller applies EXIF orientation (the pure core reads it) and flattens alpha before encoding.
enum JPEG {
    static func decode(_ bytes: [UInt8], limits: ImageLimits) throws(ImageError) -> PixelImage {
        let tj = try ImageLibraries.turboJPEG()
        guard let handle = tj.tjInitDecompress() else { throw ImageError("TurboJPEG could not start") }
        defer { _ = tj.tjDestroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let count = UInt(bytes.count)
        let headerStatus = bytes.withUnsafeBufferPointer {
            tj.tjDecompressHeader3(handle, $0.baseAddress, count, &width, &height, &subsampling, &colorspace)
        }
        if headerStatus != 0 { throw ImageError("the JPEG header cannot be read (\(message(tj, handle)))") }
        try limits.check(width: Int(width), height: Int(height))
        let cmyk = colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
        let format = cmyk ? TJPF_CMYK : TJPF_RGBA
        let size = Int(width) * Int(height) * 4
        // Progressive JPEGs with absurd numbers of scans are refused (TJFLAG_LIMITSCANS: over 500).
        let flags = TJFLAG_LIMITSCANS | TJFLAG_ACCURATEDCT
        var status: Int32 = 0
        var pixels = [UInt8](unsafeUninitializedCapacity: size) { out, initialized in
            status = bytes.withUnsafeBufferPointer {
                tj.tjDecompress2(handle, $0.baseAddress, count, out.baseAddress, width, 0, height, Int32(format.rawValue), flags)
            }
            initialized = size
        }
        if status != 0 {
            let reason = message(tj, handle)
            // A warning leaves a whole picture, except a truncated file, whose missing rows libjpeg paints grey.
            if tj.tjGetErrorCode(handle) != Int32(TJERR_WARNING.rawValue) || reason.contains("Premature end") {
                throw ImageError("the JPEG cannot be decoded (\(reason))")
            }
        }
        if cmyk { convertCMYK(&pixels, inverted: (try? ImageHeader.read(bytes))?.adobe ?? true) }
        return PixelImage(width: Int(width), height: Int(height), pixels: pixels, fromLossySource: true)
    }

    /// CMYK to RGB in place: R = (255 − C)(255 − K)/255. Adobe's files store the samples inverted.
    private static func convertCMYK(_ pixels: inout [UInt8], inverted: Bool) {
        pixels.withUnsafeMutableBufferPointer { buffer in
            var index = 0
            while index < buffer.count {
                var k = Int(buffer[index + 3])
                if !inverted { k = 255 - k }
                for channel in 0..<3 {
                    let c = inverted ? Int(buffer[index + channel]) : 255 - Int(buffer[index + channel])
                    buffer[index + channel] = UInt8((c * k + 127) / 255)
                }
                buffer[index + 3] = 255
                index += 4
            }
        }
    }

    static func encode(_ image: PixelImage, quality: Int, fullChroma: Bool) throws(ImageError) -> [UInt8] {
        let tj = try ImageLibraries.turboJPEG()
        guard let handle = tj.tjInitCompress() else { throw ImageError("TurboJPEG could not start") }
        defer { _ = tj.tjDestroy(handle) }
        guard image.width <= 65_500, image.height <= 65_500 else {
            throw ImageError("\(image.width) × \(image.height) pixels do not fit in a JPEG (at most 65500 a side)")
        }
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        let status = image.pixels.withUnsafeBufferPointer {
            tj.tjCompress2(handle, $0.baseAddress, Int32(image.width), 0, Int32(image.height), Int32(TJPF_RGBA.rawValue),
                        &output, &size, Int32((fullChroma ? TJSAMP_444 : TJSAMP_420).rawValue), Int32(max(1, min(100, quality))), TJFLAG_ACCURATEDCT)
        }
        defer { if let output { tj.tjFree(output) } }
        guard status == 0, let output else { throw ImageError("the JPEG cannot be written (\(message(tj, handle)))") }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    private static func message(_ tj: pbi_turbojpeg, _ handle: tjhandle) -> String {
        guard let text = tj.tjGetErrorStr2(handle) else { return "unknown error" }
        return String(cString: text)
    }
}
