// SPDX-License-Identifier: Apache-2.0
// libFuzzer entry point for the image decoders, through our wrapper (the pure core's header check and
// policy, then SystemImageCodec or BMPCodec). The decoder is chosen by IMAGE_FUZZ_TARGET (png, jpeg, gif,
// bmp, tiff or webp; default png): the input is handed to that decoder whatever its magic bytes. Built with
// -DFUZZING and -sanitize=fuzzer it is a libFuzzer binary; built plainly it replays the files named on its
// command line. See docs/fuzzing.md.
import Foundation
import FuzzSupport
import ImageCodecs
import Images

let target = ImageFormat(rawValue: ProcessInfo.processInfo.environment["IMAGE_FUZZ_TARGET"] ?? "png") ?? .png
let codec = SystemImageCodec()
/// 4 Mi pixels: bombs are refused from the header; what passes stays within libFuzzer's memory limit.
let limits = ImageLimits(maximumPixels: 4 << 20)

func fuzzOneInput(_ input: [UInt8]) {
    // The header reader never traps, whatever the bytes.
    let header = try? ImageHeader.read(input)
    let image: PixelImage
    do {
        image = target == .bmp ? try BMPCodec.decode(input, limits: limits) : try codec.decode(input, format: target, limits: limits)
    } catch {
        invariant(!error.reason.isEmpty, "a refusal without a reason")
        return
    }
    invariant(image.width > 0 && image.height > 0 && image.width * image.height <= limits.maximumPixels,
              "decoded \(image.width) × \(image.height) past the limit")
    invariant(image.pixels.count == image.width * image.height * 4, "a pixel buffer of the wrong size")
    if let header, header.format == target, target != .gif {
        invariant(header.width == image.width && header.height == image.height,
                  "the header says \(header.width) × \(header.height), the decoder \(image.width) × \(image.height)")
    }
    // What was decoded writes and reads back exactly through a lossless format (small pictures: time).
    if image.width * image.height <= 1 << 16 {
        do {
            let png = try ImageTranscoder.encode(image, as: .png, codec: codec)
            let back = try ImageTranscoder.decode(png, codec: codec, limits: limits)
            invariant(back.pixels == image.pixels, "PNG round trip changed the pixels")
            let bmp = try ImageTranscoder.encode(image, as: .bmp, codec: codec)
            // A PNG converts in one pass (PNG → BMP, PNG → JPEG on two threads) to what decoding then encoding gives.
            if target == .png, header?.format == .png, image.width <= 65_500 {   // JPEG's largest side
                let oneBMP = try ImageTranscoder.convert(input, to: .bmp, codec: codec, limits: limits)
                invariant(oneBMP == bmp, "PNG → BMP in one pass differs from decoding then encoding")
                let jpeg = try ImageTranscoder.convert(input, to: .jpeg, codec: codec, limits: limits)
                let whole = try codec.encode(image.isOpaque ? image : image.flattenedOntoWhite(), format: .jpeg,
                                             settings: ImageEncodeSettings(quality: 90, lossless: false, fullChroma: true))
                let onePass = try ImageTranscoder.decode(jpeg, codec: codec, limits: limits).pixels
                let twoSteps = try ImageTranscoder.decode(whole, codec: codec, limits: limits).pixels
                invariant(onePass == twoSteps, "PNG → JPEG in one pass decodes to other pixels than one encoding")
            }
        } catch {
            invariant(false, "a decoded picture does not write and read back as PNG, or convert: \(error)")
        }
    }
}

FuzzMain.run(fuzzOneInput)
