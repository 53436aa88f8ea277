// SPDX-License-Identifier: Apache-2.0
import Images
import TestSupport
import XCTest

/// The pure core of pictures: formats by magic bytes, headers, the pixel cap, BMP, orientation, flattening.
final class PureImageTests: XCTestCase {
    /// A picture with every alpha value kind: opaque, transparent, half and a little.
    static func sample(width: Int = 7, height: Int = 5, alpha: Bool = true) -> PixelImage {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let a: UInt8 = !alpha ? 255 : [255, 0, 128, 37][(x + y) % 4]
                pixels += [UInt8(x * 30 % 256), UInt8(y * 50 % 256), UInt8((x * y * 17) % 256), a]
            }
        }
        return PixelImage(width: width, height: height, pixels: pixels)
    }

    func testFormatsAreKnownByTheirMagicBytesNotTheirNames() {
        XCTAssertEqual(ImageFormat.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]), .png)
        XCTAssertEqual(ImageFormat.sniff([0xFF, 0xD8, 0xFF, 0xE0]), .jpeg)
        XCTAssertEqual(ImageFormat.sniff(Array("GIF89a".utf8)), .gif)
        XCTAssertEqual(ImageFormat.sniff(Array("II*\0".utf8)), .tiff)
        XCTAssertEqual(ImageFormat.sniff(Array("MM\0*".utf8)), .tiff)
        XCTAssertEqual(ImageFormat.sniff(Array("RIFF\0\0\0\0WEBPVP8 ".utf8)), .webp)
        XCTAssertEqual(ImageFormat.sniff(Array("RIFF\0\0\0\0WAVEfmt ".utf8)), nil, "a RIFF that is not WebP")
        XCTAssertEqual(ImageFormat.sniff(Array("BM".utf8)), nil, "too short to be a bitmap")
        XCTAssertEqual(ImageFormat.sniff(Array("{\\rtf1 hello}".utf8)), nil)
        XCTAssertEqual(ImageFormat(mimeType: "image/x-MS-bmp"), .bmp)
        XCTAssertEqual(ImageFormat(fileExtension: "JPG"), .jpeg)
    }

    func testBMPRoundTripIsExactForOpaquePicturesAndItsHeaderReadsBack() throws {
        let image = Self.sample(alpha: false)
        let bytes = try BMPCodec.encode(image)
        XCTAssertEqual(Array(bytes.prefix(2)), Array("BM".utf8))
        XCTAssertEqual(bytes.count, 54 + ((7 * 3 + 3) & ~3) * 5, "24-bit rows padded to 4 bytes")
        XCTAssertEqual(try BMPCodec.decode(bytes, limits: ImageLimits()), image)
        let header = try ImageHeader.read(bytes)
        XCTAssertEqual([header.width, header.height], [7, 5])
        XCTAssertEqual(header.summary, "image/bmp 7×5")
    }

    func testFlatteningOntoWhiteKeepsOpaquePixelsAndWhitensTransparentOnes() {
        let flat = Self.sample().flattenedOntoWhite()
        XCTAssertTrue(flat.isOpaque)
        let original = Self.sample()
        for pixel in 0..<(7 * 5) {
            let a = Int(original.pixels[pixel * 4 + 3])
            for channel in 0..<3 {
                let c = Int(original.pixels[pixel * 4 + channel])
                XCTAssertEqual(Int(flat.pixels[pixel * 4 + channel]), (c * a + 255 * (255 - a) + 127) / 255)
            }
            if a == 0 { XCTAssertEqual(Array(flat.pixels[(pixel * 4)..<(pixel * 4 + 3)]), [255, 255, 255]) }
        }
    }

    func testOrientationsTurnThePictureAsViewersShowIt() {
        // 2 × 1: red then green. Orientation 6 (turn 90° clockwise to be upright) makes it 1 × 2, red on top.
        let image = PixelImage(width: 2, height: 1, pixels: [255, 0, 0, 255, 0, 255, 0, 255])
        let turned = image.oriented(6)
        XCTAssertEqual([turned.width, turned.height], [1, 2])
        XCTAssertEqual(turned.pixels, [255, 0, 0, 255, 0, 255, 0, 255])
        XCTAssertEqual(image.oriented(8).pixels, [0, 255, 0, 255, 255, 0, 0, 255], "anticlockwise: green on top")
        XCTAssertEqual(image.oriented(2).pixels, [0, 255, 0, 255, 255, 0, 0, 255], "mirrored")
        XCTAssertEqual(image.oriented(3).oriented(3), image, "180° twice is upright")
        let sample = Self.sample()
        for orientation in 1...8 {
            let size = sample.oriented(orientation)
            XCTAssertEqual(size.width * size.height, 35)
        }
        XCTAssertEqual(sample.oriented(6).oriented(8), sample, "clockwise then anticlockwise")
        XCTAssertEqual(sample.oriented(5).oriented(5), sample, "a transpose twice")
    }

    func testThePixelCapIsCheckedFromTheHeaderBeforeAnythingIsAllocated() throws {
        // A BMP header claiming 100000 × 100000 pixels, followed by nothing.
        var bomb = try BMPCodec.encode(PixelImage(width: 1, height: 1, pixels: [0, 0, 0, 255]))
        bomb.replaceSubrange(18..<26, with: [0xA0, 0x86, 0x01, 0x00, 0xA0, 0x86, 0x01, 0x00])
        XCTAssertThrowsError(try BMPCodec.decode(bomb, limits: ImageLimits())) { error in
            XCTAssertTrue("\(error)".contains("over the limit"), "\(error)")
        }
        XCTAssertThrowsError(try ImageLimits(maximumPixels: 100).check(width: 11, height: 10))
        XCTAssertNoThrow(try ImageLimits(maximumPixels: 100).check(width: 10, height: 10))
        XCTAssertThrowsError(try ImageLimits().check(width: Int.max, height: 3), "overflow is over the limit")
        XCTAssertThrowsError(try ImageLimits().check(width: 0, height: 3))
    }

    func testHostileBitmapsAreRefusedWithAReason() throws {
        let good = try BMPCodec.encode(Self.sample(alpha: false))
        // Truncated pixel data.
        XCTAssertThrowsError(try BMPCodec.decode(Array(good.prefix(good.count - 10)), limits: ImageLimits())) {
            XCTAssertTrue("\($0)".contains("truncated"), "\($0)")
        }
        // An 8-bit bitmap with a 2-colour palette whose pixels use index 200.
        var paletted: [UInt8] = Array("BM".utf8) + le32(14 + 40 + 8 + 4) + [0, 0, 0, 0] + le32(14 + 40 + 8)
        paletted += le32(40) + le32(2) + le32(1) + [1, 0, 8, 0] + le32(0) + le32(4) + le32(0) + le32(0) + le32(2) + le32(0)
        paletted += [0, 0, 0, 0, 255, 255, 255, 0] + [1, 200, 0, 0]
        XCTAssertThrowsError(try BMPCodec.decode(paletted, limits: ImageLimits())) {
            XCTAssertEqual("\($0)", "the BMP uses palette index 200, but its palette has 2 colours")
        }
        paletted.replaceSubrange((14 + 40 + 8)..<(14 + 40 + 10), with: [0, 1])
        XCTAssertEqual(try BMPCodec.decode(paletted, limits: ImageLimits()).pixels, [0, 0, 0, 255, 255, 255, 255, 255])
        // RLE, an unknown header size, a height of Int32.min.
        var rle = good
        rle[30] = 1
        XCTAssertThrowsError(try BMPCodec.decode(rle, limits: ImageLimits())) { XCTAssertTrue("\($0)".contains("RLE"), "\($0)") }
        var odd = good
        odd[14] = 41
        XCTAssertThrowsError(try BMPCodec.decode(odd, limits: ImageLimits()))
        var minimum = good
        minimum.replaceSubrange(22..<26, with: [0, 0, 0, 0x80])
        XCTAssertThrowsError(try BMPCodec.decode(minimum, limits: ImageLimits()))
    }

    func testHeadersOfEveryFormatAndTheirTraps() throws {
        // A JPEG whose markers never reach a frame header, and one with a length field under 2.
        XCTAssertThrowsError(try ImageHeader.read([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + [UInt8](repeating: 0, count: 14)))
        XCTAssertThrowsError(try ImageHeader.read([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01, 0, 0]))
        // A TIFF whose first directory claims 60 000 entries.
        XCTAssertThrowsError(try ImageHeader.read(Array("II*\0".utf8) + le32(8) + [0x60, 0xEA] + [UInt8](repeating: 0, count: 24)))
        // A TIFF giving ImageWidth twice: the first counts, as libtiff reads it (ImageFuzz found the disagreement).
        var twice = Array("II*\0".utf8) + le32(8) + [3, 0]
        for (tag, value) in [(256, 1), (257, 23), (256, 23)] {
            twice += [UInt8(tag & 0xFF), UInt8(tag >> 8), 3, 0] + le32(1) + [UInt8(value), 0, 0, 0]
        }
        let header = try ImageHeader.read(twice + le32(0))
        XCTAssertEqual([header.width, header.height], [1, 23])
        // A PNG whose first chunk is not IHDR.
        XCTAssertThrowsError(try ImageHeader.read([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + le32(0) + Array("IDAT".utf8) + [UInt8](repeating: 0, count: 12)))
        XCTAssertThrowsError(try ImageHeader.read(Array("plain text".utf8))) { XCTAssertTrue("\($0)".contains("not a PNG")) }
    }

    func testUnfilteringUndoesEveryFilterIntoRGBBGRAndRGBA() {
        // Random rows filtered by each filter type in turn (the specification's reference filters), first row
        // included; each row is unfiltered into every output the decoder uses and compared with the pixels.
        var generator = SeededGenerator.forTest(name)
        for (channels, outputChannels, bgr) in [(3, 3, false), (3, 3, true), (3, 4, false), (4, 4, false)] {
            let width = 7, height = 10
            let rows = (0..<height).map { _ in (0..<(width * channels)).map { _ in UInt8.random(in: 0...255, using: &generator) } }
            var output = [UInt8](repeating: 0xEE, count: width * outputChannels * height)
            for y in 0..<height {
                let filter = UInt8(y % 5)
                let filtered = Self.filter(rows[y], above: y == 0 ? nil : rows[y - 1], type: filter, channels: channels)
                let ok = output.withUnsafeMutableBufferPointer { out in
                    filtered.withUnsafeBufferPointer { source in
                        PNGUnfilter.row(filter: filter, filtered: source.baseAddress!,
                                        previous: y == 0 ? nil : UnsafePointer(out.baseAddress! + (y - 1) * width * outputChannels),
                                        output: out.baseAddress! + y * width * outputChannels, width: width,
                                        channels: channels, outputChannels: outputChannels, bgr: bgr)
                    }
                }
                XCTAssertTrue(ok)
                for x in 0..<width {
                    let pixel = Array(output[((y * width + x) * outputChannels)..<((y * width + x + 1) * outputChannels)])
                    var expected = Array(rows[y][(x * channels)..<((x + 1) * channels)])
                    if bgr { expected.reverse() }
                    if outputChannels > channels { expected.append(255) }
                    XCTAssertEqual(pixel, expected, "\(channels) → \(outputChannels)\(bgr ? " BGR" : ""), filter \(filter), pixel \(x)")
                }
            }
        }
        var out = [UInt8](repeating: 0, count: 12)
        let refused = out.withUnsafeMutableBufferPointer { out in
            [UInt8](repeating: 0, count: 9).withUnsafeBufferPointer {
                PNGUnfilter.row(filter: 5, filtered: $0.baseAddress!, previous: nil, output: out.baseAddress!, width: 3, channels: 3, outputChannels: 4)
            }
        }
        XCTAssertFalse(refused, "filter type 5 does not exist")
    }

    /// PNG's filter `type` applied to `row` (the encoder's side, from the specification).
    static func filter(_ row: [UInt8], above: [UInt8]?, type: UInt8, channels: Int) -> [UInt8] {
        row.indices.map { i in
            let a = i >= channels ? Int(row[i - channels]) : 0
            let b = above.map { Int($0[i]) } ?? 0
            let c = i >= channels ? above.map { Int($0[i - channels]) } ?? 0 : 0
            let predictor: Int
            switch type {
            case 0: predictor = 0
            case 1: predictor = a
            case 2: predictor = b
            case 3: predictor = (a + b) / 2
            default:
                let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c
            }
            return UInt8(truncatingIfNeeded: Int(row[i]) - predictor)
        }
    }

    func testJPEGStripsJoinWithRestartMarkersAndRefuseWhatTheyCannotJoin() throws {
        // Two hand-made "strips": SOI, SOF0 (height 8), SOS, data, EOI.
        func strip(_ data: [UInt8]) -> [UInt8] {
            [0xFF, 0xD8] + [0xFF, 0xC0, 0, 11, 8, 0, 8, 0, 16, 1, 1, 0x11, 0] + [0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 63, 0] + data + [0xFF, 0xD9]
        }
        let joined = try JPEGStrips.join([strip([1, 2]), strip([3]), strip([4, 0xFF, 0])], height: 20, mcusPerStrip: 2)
        XCTAssertEqual(joined, [0xFF, 0xD8] + [0xFF, 0xC0, 0, 11, 8, 0, 20, 0, 16, 1, 1, 0x11, 0] + [0xFF, 0xDD, 0, 4, 0, 2]
                       + [0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 63, 0] + [1, 2, 0xFF, 0xD0, 3, 0xFF, 0xD1, 4, 0xFF, 0, 0xFF, 0xD9])
        XCTAssertEqual(try JPEGStrips.join([strip([9])], height: 8, mcusPerStrip: 2), strip([9]), "one strip is the picture")
        var progressive = strip([1])
        progressive[3] = 0xC2
        XCTAssertThrowsError(try JPEGStrips.join([progressive, progressive], height: 16, mcusPerStrip: 2))
        XCTAssertThrowsError(try JPEGStrips.join([strip([1]), Array(strip([1]).dropLast())], height: 16, mcusPerStrip: 2))
    }

    private func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
}
