// SPDX-License-Identifier: Apache-2.0
import CImageShims
import Images
import SystemSupport

/// TIFF through libtiff (opened on first use: `ImageLibraries`), from and to memory: the first directory only (a chain of further directories is
/// never followed). 8-bit RGB and RGBA in strips with unassociated alpha or none — what Apple puts in RTFD,
/// and what this writes — are read row by row exactly; everything else libtiff reads (palette, grey,
/// 16-bit, CMYK, YCbCr, tiles, LZW/Deflate/PackBits/JPEG, any orientation) through its RGBA interface,
/// whose premultiplied alpha is undone. Written as Deflate with the horizontal predictor, RGB or RGBA.
enum TIFF {
    // Tags and values (tiff.h; some are macros Swift does not import).
    static let imageWidth: UInt32 = 256, imageLength: UInt32 = 257, bitsPerSample: UInt32 = 258, compression: UInt32 = 259
    static let photometric: UInt32 = 262, orientation: UInt32 = 274, samplesPerPixel: UInt32 = 277, rowsPerStrip: UInt32 = 278
    static let planarConfig: UInt32 = 284, predictor: UInt32 = 317, extraSamples: UInt32 = 338, zipQuality: UInt32 = 65557
    static let adobeDeflate: Int32 = 8, photometricRGB: Int32 = 2, unassociatedAlpha: UInt16 = 2, associatedAlpha: UInt16 = 1

    static func decode(_ bytes: [UInt8], limits: ImageLimits) throws(ImageError) -> PixelImage {
        let tiff = try ImageLibraries.tiff()
        let stream = TIFFStream(bytes)
        let (handle, messages) = try open(stream, mode: "rm", limits: limits, tiff)
        defer { tiff.TIFFClose(handle) }
        func field<T: BinaryInteger>(_ tag: UInt32, _ type: T.Type, defaulted: Bool = true) -> T? {
            var value: T = 0
            let found = withUnsafeMutablePointer(to: &value) { pointer in
                withVaList([pointer]) { defaulted ? tiff.TIFFVGetFieldDefaulted(handle, tag, $0) : tiff.TIFFVGetField(handle, tag, $0) }
            }
            return found == 1 ? value : nil
        }
        guard let width = field(imageWidth, UInt32.self, defaulted: false), let height = field(imageLength, UInt32.self, defaulted: false) else {
            throw ImageError("the TIFF gives no width or height")
        }
        try limits.check(width: Int(width), height: Int(height))
        var extraCount: UInt16 = 0
        var extraTypes: UnsafeMutablePointer<UInt16>? = nil
        _ = withUnsafeMutablePointer(to: &extraCount) { count in
            withUnsafeMutablePointer(to: &extraTypes) { types in withVaList([count, types]) { tiff.TIFFVGetFieldDefaulted(handle, extraSamples, $0) } }
        }
        let extras = (0..<Int(extraCount)).map { extraTypes![$0] }
        let hasAlpha = extras.first == unassociatedAlpha || extras.first == associatedAlpha
        let samples = Int(field(samplesPerPixel, UInt16.self) ?? 1)
        let plain = tiff.TIFFIsTiled(handle) == 0 && field(bitsPerSample, UInt16.self) == 8 && field(photometric, UInt16.self) == 2
            && field(planarConfig, UInt16.self) == 1 && (field(orientation, UInt16.self) ?? 1) == 1
            && (samples == 3 || (samples == 4 && extras.first == unassociatedAlpha))
        let count = Int(width) * Int(height)
        if plain {
            let lineSize = Int(tiff.TIFFScanlineSize(handle))
            guard lineSize == Int(width) * samples else { throw ImageError("the TIFF's rows are not the size its header says") }
            var line = [UInt8](repeating: 0, count: lineSize)
            var pixels = [UInt8](repeating: 255, count: count * 4)
            for row in 0..<Int(height) {
                let status = line.withUnsafeMutableBytes { tiff.TIFFReadScanline(handle, $0.baseAddress, UInt32(row), 0) }
                guard status == 1 else { throw messages.error("the TIFF's image data cannot be read") }
                pixels.withUnsafeMutableBufferPointer { out in
                    var o = row * Int(width) * 4
                    var i = 0
                    for _ in 0..<Int(width) {
                        out[o] = line[i]; out[o + 1] = line[i + 1]; out[o + 2] = line[i + 2]
                        if samples == 4 { out[o + 3] = line[i + 3] }
                        o += 4
                        i += samples
                    }
                }
            }
            return PixelImage(width: Int(width), height: Int(height), pixels: pixels)
        }
        var status: Int32 = 0
        let raster = [UInt32](unsafeUninitializedCapacity: count) { out, initialized in
            status = tiff.TIFFReadRGBAImageOriented(handle, width, height, out.baseAddress, 1, 1)
            if status != 1 { out.initialize(repeating: 0) }
            initialized = count
        }
        guard status == 1 else { throw messages.error("the TIFF's image data cannot be read") }
        // ABGR words: R in the low byte, so on a little-endian machine the bytes are R, G, B, A.
        var image = PixelImage(width: Int(width), height: Int(height), pixels: raster.withUnsafeBytes { Array($0) })
        if hasAlpha { image.unpremultiply() }
        return image
    }

    static func encode(_ image: PixelImage) throws(ImageError) -> [UInt8] {
        let tiff = try ImageLibraries.tiff()
        guard image.width <= Int(UInt32.max), image.height <= Int(UInt32.max) else { throw ImageError("the picture is too large for TIFF") }
        let stream = TIFFStream([])
        let (handle, messages) = try open(stream, mode: "w", limits: ImageLimits(), tiff)
        var closed = false
        defer { if !closed { tiff.TIFFClose(handle) } }
        let opaque = image.isOpaque
        let samples = opaque ? 3 : 4
        func set(_ tag: UInt32, _ arguments: [CVarArg]) -> Bool { withVaList(arguments) { tiff.TIFFVSetField(handle, tag, $0) } == 1 }
        var alpha = unassociatedAlpha
        let fieldsSet = set(imageWidth, [UInt32(image.width)]) && set(imageLength, [UInt32(image.height)])
            && set(bitsPerSample, [Int32(8)]) && set(samplesPerPixel, [Int32(samples)]) && set(photometric, [photometricRGB])
            && set(planarConfig, [Int32(1)]) && set(orientation, [Int32(1)]) && set(compression, [adobeDeflate])
            && set(predictor, [Int32(2)]) && set(zipQuality, [Int32(1)]) && set(rowsPerStrip, [UInt32(64)])
            && (opaque || withUnsafeMutablePointer(to: &alpha) { set(extraSamples, [Int32(1), $0]) })
        guard fieldsSet else { throw messages.error("the TIFF's fields cannot be set") }
        var line = [UInt8](repeating: 0, count: image.width * samples)
        for row in 0..<image.height {
            image.pixels.withUnsafeBufferPointer { input in
                var i = row * image.width * 4
                var o = 0
                for _ in 0..<image.width {
                    line[o] = input[i]; line[o + 1] = input[i + 1]; line[o + 2] = input[i + 2]
                    if samples == 4 { line[o + 3] = input[i + 3] }
                    i += 4
                    o += samples
                }
            }
            let status = line.withUnsafeMutableBytes { tiff.TIFFWriteScanline(handle, $0.baseAddress, UInt32(row), 0) }
            guard status == 1 else { throw messages.error("the TIFF cannot be written") }
        }
        closed = true
        tiff.TIFFClose(handle)
        if let error = messages.first { throw ImageError("the TIFF cannot be written (\(error))") }
        return stream.bytes
    }

    /// Opens `stream` through client I/O with per-handle error and warning handlers (warnings are dropped;
    /// the first error is kept for the reason) and a cap on any single allocation.
    private static func open(_ stream: TIFFStream, mode: String, limits: ImageLimits,
                             _ tiff: pbi_tiff) throws(ImageError) -> (OpaquePointer, TIFFMessages) {
        let messages = stream.messages
        guard let options = tiff.TIFFOpenOptionsAlloc() else { throw ImageError("libtiff could not start") }
        defer { tiff.TIFFOpenOptionsFree(options) }
        let opaque = Unmanaged.passUnretained(stream).toOpaque()
        tiff.TIFFOpenOptionsSetMaxSingleMemAlloc(options, tmsize_t(max(64 << 20, limits.maximumPixels * 4 + (1 << 20))))
        tiff.TIFFOpenOptionsSetErrorHandlerExtR(options, { _, user, module, format, arguments in
            let stream = Unmanaged<TIFFStream>.fromOpaque(user!).takeUnretainedValue()
            if stream.messages.first == nil, let format {
                stream.messages.first = (module.map { String(cString: $0) + ": " } ?? "") + CFormat.string(format, arguments!)
            }
            return 1
        }, opaque)
        tiff.TIFFOpenOptionsSetWarningHandlerExtR(options, { _, _, _, _, _ in 1 }, opaque)
        let handle = tiff.TIFFClientOpenExt("memory", mode, opaque,
            { handle, buffer, size in tmsize_t(TIFFStream.from(handle).read(buffer!, Int(size))) },
            { handle, buffer, size in tmsize_t(TIFFStream.from(handle).write(buffer!, Int(size))) },
            { handle, offset, whence in TIFFStream.from(handle).seek(offset, whence) },
            { _ in 0 },
            { handle in UInt64(TIFFStream.from(handle).count) },
            { _, _, _ in 0 },
            { _, _, _ in },
            options)
        guard let handle else { throw messages.error("the TIFF cannot be opened") }
        return (handle, messages)
    }
}

/// The first error libtiff reported for one handle.
final class TIFFMessages {
    var first: String?
    func error(_ what: String) -> ImageError { ImageError(first.map { "\(what) (\($0))" } ?? what) }
}

/// Memory that libtiff reads and writes through its client I/O procedures.
final class TIFFStream {
    var bytes: [UInt8]
    var position = 0
    let messages = TIFFMessages()

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    static func from(_ handle: thandle_t?) -> TIFFStream { Unmanaged<TIFFStream>.fromOpaque(handle!).takeUnretainedValue() }

    var count: Int { bytes.count }

    func read(_ buffer: UnsafeMutableRawPointer, _ size: Int) -> Int {
        let n = max(0, min(size, bytes.count - position))
        if n > 0 { bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress! + position, byteCount: n) } }
        position += n
        return n
    }

    func write(_ buffer: UnsafeMutableRawPointer, _ size: Int) -> Int {
        let end = position + size
        if end > bytes.count { bytes.append(contentsOf: repeatElement(0, count: end - bytes.count)) }
        bytes.withUnsafeMutableBytes { ($0.baseAddress! + position).copyMemory(from: buffer, byteCount: size) }
        position = end
        return size
    }

    func seek(_ offset: UInt64, _ whence: Int32) -> UInt64 {
        let base: Int
        switch whence {
        case 1: base = position   // SEEK_CUR
        case 2: base = bytes.count   // SEEK_END
        default: base = 0
        }
        let target = base + Int(truncatingIfNeeded: Int64(bitPattern: offset))
        guard target >= 0, target <= 1 << 40 else { return UInt64.max }
        position = target
        return UInt64(target)
    }
}
