// SPDX-License-Identifier: Apache-2.0
import CImageShims
import Images
import SystemSupport

/// PNG → JPEG in one pass on two threads: a helper thread decodes the PNG's rows (`PNG.imageData`) while the
/// calling thread encodes each strip of 64 rows as soon as it is there, and the strips are joined with restart
/// markers (`JPEGStrips`). For an 8-bit RGB or RGBA PNG that is not interlaced; RGB is decoded as RGB and
/// encoded from RGB (never widened to RGBA). RGBA rows are composited onto white first
/// (`PixelImage.flattenOntoWhite`, as the policy does for the whole picture): the pixels are those that decoding
/// and then encoding give, and the first derived paste of a screenshot takes about the time of the decoding alone.
enum PNGToJPEG {
    /// Rows of pixels shared by the decoding thread (which writes them and raises `progress`) and the encoding
    /// thread (which reads the rows below the progress). Lives until both are done.
    private final class Rows: @unchecked Sendable {
        let pixels: UnsafeMutablePointer<UInt8>
        var failure: ImageError? = nil   // written by the decoder before it finishes; read after
        init(count: Int) {
            pixels = .allocate(capacity: count)
            HugePages.advise(pixels, count: count)
        }
        deinit { pixels.deallocate() }
    }

    /// nil when the PNG is not one the pipeline takes (the caller decodes and encodes).
    static func convert(_ bytes: [UInt8], limits: ImageLimits, quality: Int, fullChroma: Bool) throws(ImageError) -> [UInt8]? {
        let tj = try ImageLibraries.turboJPEG()
        let (width, height, channels) = try PNG.layout(bytes, limits: limits)
        guard channels != 0 else { return nil }
        guard width <= 65_500, height <= 65_500 else {
            throw ImageError("\(width) × \(height) pixels do not fit in a JPEG (at most 65500 a side)")
        }
        let mcu = fullChroma ? 8 : 16
        let mcusPerRow = (width + mcu - 1) / mcu
        let stripRows = mcu * max(1, min(64 / mcu, 0xFFFF / mcusPerRow))
        let rowBytes = width * channels
        let rows = Rows(count: (rowBytes + 1) * height)   // inflated in place: the filter bytes too
        let progress = SharedProgress()
        progress.start {
            rows.failure = bytes.withUnsafeBytes { file -> ImageError? in
                do throws(ImageError) {
                    try PNG.imageData(file, into: rows.pixels, width: width, height: height, channels: channels,
                                      outputChannels: channels, filtered: rows.pixels) { progress.advance(to: $0) }
                    return nil
                } catch {
                    return error
                }
            }
        }
        defer { progress.waitUntilFinished() }   // the decoder writes into `rows` until then

        guard let handle = tj.tjInitCompress() else { throw ImageError("TurboJPEG could not start") }
        defer { _ = tj.tjDestroy(handle) }
        let sampling = Int32((fullChroma ? TJSAMP_444 : TJSAMP_420).rawValue)
        let format = Int32((channels == 3 ? TJPF_RGB : TJPF_RGBA).rawValue)
        let capacity = tj.tjBufSize(Int32(width), Int32(stripRows), sampling)
        guard capacity != UInt(bitPattern: -1) else { throw ImageError("the JPEG cannot be written (its size)") }
        let buffer = tj.tjAlloc(Int32(capacity))
        guard buffer != nil else { throw ImageError("the JPEG cannot be written (out of memory)") }
        defer { tj.tjFree(buffer) }
        var strips: [[UInt8]] = []
        var top = 0
        while top < height {
            let bottom = min(height, top + stripRows)
            // Flattening writes the rows, and the decoder reads the row above the one it unfilters: RGBA rows are
            // flattened once the row after them is decoded too (the last strip: once the decoder finished).
            let needed = channels == 4 ? min(height, bottom + 1) : bottom
            guard progress.wait(for: needed) >= needed else { break }   // the decoder stopped short: its failure below
            let first = rows.pixels + top * rowBytes
            if channels == 4 { PixelImage.flattenOntoWhite(first, count: (bottom - top) * width) }
            var output = buffer
            var size = capacity
            let status = tj.tjCompress2(handle, first, Int32(width), Int32(rowBytes), Int32(bottom - top), format, &output, &size,
                                     sampling, Int32(max(1, min(100, quality))), TJFLAG_ACCURATEDCT | TJFLAG_NOREALLOC)
            guard status == 0, let output else {
                let reason = tj.tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown error"
                throw ImageError("the JPEG cannot be written (\(reason))")
            }
            strips.append(Array(UnsafeBufferPointer(start: output, count: Int(size))))
            top = bottom
        }
        progress.waitUntilFinished()
        if let failure = rows.failure { throw failure }
        return try JPEGStrips.join(strips, height: height, mcusPerStrip: mcusPerRow * stripRows / mcu)
    }
}
