// SPDX-License-Identifier: Apache-2.0
import CImageShims
import Images

/// GIF through giflib: the first frame, interlaced or not, with its transparency, on a transparent canvas of
/// the logical screen's size (grown to hold the frame). Read only.
enum GIF {
    /// The most extension blocks read before the first frame.
    static let maximumExtensions = 10_000

    static func decode(_ bytes: [UInt8], limits: ImageLimits) throws(ImageError) -> PixelImage {
        let giflib = try ImageLibraries.gif()
        let source = ByteSource(bytes)
        let unmanaged = Unmanaged.passRetained(source)
        defer { unmanaged.release() }
        var error: Int32 = 0
        guard let gif = giflib.DGifOpen(unmanaged.toOpaque(), { file, buffer, count in
            guard let file, let buffer, count > 0 else { return 0 }
            return Unmanaged<ByteSource>.fromOpaque(file.pointee.UserData).takeUnretainedValue().read(into: buffer, count: Int(count))
        }, &error) else {
            throw ImageError("the GIF cannot be read (\(describe(giflib, error)))")
        }
        defer { _ = giflib.DGifCloseFile(gif, &error) }
        func fail(_ what: String) -> ImageError { ImageError("the GIF cannot be read (\(what): \(describe(giflib, gif.pointee.Error)))") }

        var transparent: Int32 = -1
        for _ in 0..<maximumExtensions {
            var record = UNDEFINED_RECORD_TYPE
            guard giflib.DGifGetRecordType(gif, &record) == GIF_OK else { throw fail("record") }
            switch record {
            case EXTENSION_RECORD_TYPE:
                var code: Int32 = 0
                var block: UnsafeMutablePointer<GifByteType>? = nil
                guard giflib.DGifGetExtension(gif, &code, &block) == GIF_OK else { throw fail("extension") }
                if code == GRAPHICS_EXT_FUNC_CODE, let block, block[0] >= 4 {
                    var control = GraphicsControlBlock()
                    if giflib.DGifExtensionToGCB(Int(block[0]), block + 1, &control) == GIF_OK { transparent = control.TransparentColor }
                }
                var blocks = 0
                while block != nil {
                    guard giflib.DGifGetExtensionNext(gif, &block) == GIF_OK else { throw fail("extension") }
                    blocks += 1
                    if blocks > maximumExtensions { throw ImageError("the GIF has an extension of more than \(maximumExtensions) blocks") }
                }
            case IMAGE_DESC_RECORD_TYPE:
                guard giflib.DGifGetImageDesc(gif) == GIF_OK else { throw fail("image descriptor") }
                return try frame(giflib, gif, transparent: transparent, limits: limits)
            case TERMINATE_RECORD_TYPE:
                throw ImageError("the GIF has no frame")
            default:
                throw ImageError("the GIF has an unknown record")
            }
        }
        throw ImageError("the GIF has more than \(maximumExtensions) extensions before its first frame")
    }

    private static func frame(_ giflib: pbi_gif, _ gif: UnsafeMutablePointer<GifFileType>, transparent: Int32, limits: ImageLimits) throws(ImageError) -> PixelImage {
        let descriptor = gif.pointee.Image
        let left = Int(descriptor.Left), top = Int(descriptor.Top)
        let frameWidth = Int(descriptor.Width), frameHeight = Int(descriptor.Height)
        try limits.check(width: frameWidth, height: frameHeight)
        let width = max(Int(gif.pointee.SWidth), left + frameWidth), height = max(Int(gif.pointee.SHeight), top + frameHeight)
        try limits.check(width: width, height: height)
        guard let map = descriptor.ColorMap ?? gif.pointee.SColorMap, map.pointee.ColorCount > 0 else {
            throw ImageError("the GIF has no colour table")
        }
        let colors = Int(map.pointee.ColorCount)
        var palette = [UInt8](repeating: 0, count: colors * 4)
        for index in 0..<colors {
            let color = map.pointee.Colors[index]
            palette[index * 4] = color.Red
            palette[index * 4 + 1] = color.Green
            palette[index * 4 + 2] = color.Blue
            palette[index * 4 + 3] = 255
        }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        var line = [GifPixelType](repeating: 0, count: frameWidth)
        // Interlaced frames store rows 0, 8, 16…, then 4, 12…, then 2, 6…, then 1, 3…
        let order: [Int] = descriptor.Interlace
            ? Array(stride(from: 0, to: frameHeight, by: 8)) + Array(stride(from: 4, to: frameHeight, by: 8))
              + Array(stride(from: 2, to: frameHeight, by: 4)) + Array(stride(from: 1, to: frameHeight, by: 2))
            : Array(0..<frameHeight)
        for row in order {
            let status = line.withUnsafeMutableBufferPointer { giflib.DGifGetLine(gif, $0.baseAddress, Int32(frameWidth)) }
            guard status == GIF_OK else {
                throw ImageError("the GIF's image data cannot be read (\(describe(giflib, gif.pointee.Error)))")
            }
            var o = ((top + row) * width + left) * 4
            for x in 0..<frameWidth {
                let index = Int(line[x])
                if index == Int(transparent) {
                    o += 4
                    continue
                }
                guard index < colors else {
                    throw ImageError("the GIF uses colour index \(index), but its colour table has \(colors) colours")
                }
                pixels[o] = palette[index * 4]
                pixels[o + 1] = palette[index * 4 + 1]
                pixels[o + 2] = palette[index * 4 + 2]
                pixels[o + 3] = 255
                o += 4
            }
        }
        return PixelImage(width: width, height: height, pixels: pixels)
    }

    private static func describe(_ giflib: pbi_gif, _ code: Int32) -> String {
        guard let text = giflib.GifErrorString(code) else { return "error \(code)" }
        return String(cString: text)
    }
}

/// Hands a byte array to a library that reads through a callback (giflib).
final class ByteSource {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) -> Int32 {
        let n = max(0, min(count, bytes.count - position))
        bytes.withUnsafeBufferPointer { source in
            if n > 0 { buffer.update(from: source.baseAddress! + position, count: n) }
        }
        position += n
        return Int32(n)
    }
}
