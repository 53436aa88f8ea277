// SPDX-License-Identifier: Apache-2.0
import Foundation
import ImageCodecs
import Images
import TestSupport
import XCTest

/// The C codecs behind the door: pictures other encoders made decode to the pixels PIL decodes; what we
/// write decodes back; hostile input is refused with a reason; calls on several threads do not interfere.
final class CodecTests: XCTestCase {
    let codec = SystemImageCodec()

    /// Pictures written by PIL (and by hand where PIL cannot), from `make-fixtures.py`.
    func fixtures() throws -> (String, [[String: Any]]) {
        let directory = NSTemporaryDirectory() + "image-fixtures-" + UUID().uuidString
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("make-fixtures.py").path
        let result = try Runner(environment: ProcessInfo.processInfo.environment).run("/usr/bin/python3", [script, directory], timeout: 60)
        if result.status != 0 {
            if !Tools.isCI && result.stderr.contains("No module named 'PIL'") {
                throw XCTSkip(SkipLog.record(name, "python3-pil is not installed; `make test` installs it"))
            }
            XCTFail("make-fixtures.py: \(result.stderr)")
        }
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory + "/manifest.json")))
        return (directory, try XCTUnwrap(manifest as? [[String: Any]]))
    }

    func testEveryVariantDecodesToThePixelsPILDecodes() throws {
        let (directory, manifest) = try fixtures()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        XCTAssertGreaterThanOrEqual(manifest.count, 25)
        for entry in manifest {
            let name = entry["name"] as! String
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/" + (entry["file"] as! String))))
            let expected = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/\(name).rgba")))
            let tolerance = entry["tolerance"] as! Int
            let image: PixelImage
            do { image = try ImageTranscoder.decode(bytes, codec: codec, limits: ImageLimits()) } catch {
                XCTFail("\(name): \(error)")
                continue
            }
            XCTAssertEqual([image.width, image.height], [entry["width"] as! Int, entry["height"] as! Int], name)
            guard image.pixels.count == expected.count else { continue }
            var worst = 0
            for pixel in 0..<(expected.count / 4) {
                let o = pixel * 4
                if expected[o + 3] == 0 && image.pixels[o + 3] == 0 { continue }   // transparent: colour unseen
                for channel in 0..<4 { worst = max(worst, abs(Int(image.pixels[o + channel]) - Int(expected[o + channel]))) }
            }
            XCTAssertLessThanOrEqual(worst, tolerance, "\(name): a channel differs from PIL's by \(worst)")
        }
    }

    func testPNGToJPEGAndBMPInOnePassGiveWhatDecodingThenEncodingGives() throws {
        // PIL's PNGs use every filter; ours are odd sizes, one strip and several, with and without alpha.
        let (directory, manifest) = try fixtures()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var sources: [(String, [UInt8])] = try manifest.filter { ($0["file"] as! String).hasSuffix(".png") }.map {
            ($0["name"] as! String, try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/" + ($0["file"] as! String)))))
        }
        for (width, height, alpha) in [(1, 1, false), (33, 7, false), (130, 150, false), (130, 150, true), (67, 200, true)] {
            sources.append(("\(width)×\(height)\(alpha ? " alpha" : "")",
                            try ImageTranscoder.encode(Self.gradient(width: width, height: height, alpha: alpha), as: .png, codec: codec)))
        }
        for (name, png) in sources {
            let decoded = try ImageTranscoder.decode(png, codec: codec, limits: ImageLimits())
            let flat = decoded.isOpaque ? decoded : decoded.flattenedOntoWhite()
            XCTAssertEqual(try ImageTranscoder.convert(png, to: .bmp, codec: codec, limits: ImageLimits()), try BMPCodec.encode(flat), name)
            let jpeg = try ImageTranscoder.convert(png, to: .jpeg, codec: codec, limits: ImageLimits())
            let whole = try codec.encode(flat, format: .jpeg, settings: ImageEncodeSettings(quality: 90, lossless: false, fullChroma: true))
            XCTAssertEqual(try ImageTranscoder.decode(jpeg, codec: codec, limits: ImageLimits()),
                           try ImageTranscoder.decode(whole, codec: codec, limits: ImageLimits()), "\(name): strips joined decode as the whole")
        }
        // RGBA is flattened strip by strip while the next rows are decoded from the rows above: again and again,
        // so that a race between the two threads (it happened) shows.
        let alpha = Self.gradient(width: 300, height: 260, alpha: true)
        let alphaPNG = try ImageTranscoder.encode(alpha, as: .png, codec: codec)
        let expected = try ImageTranscoder.decode(try codec.encode(alpha.flattenedOntoWhite(), format: .jpeg,
                                                                   settings: ImageEncodeSettings(quality: 90, lossless: false, fullChroma: true)),
                                                  codec: codec, limits: ImageLimits())
        for attempt in 0..<8 {
            let jpeg = try ImageTranscoder.convert(alphaPNG, to: .jpeg, codec: codec, limits: ImageLimits())
            XCTAssertTrue(try ImageTranscoder.decode(jpeg, codec: codec, limits: ImageLimits()) == expected, "attempt \(attempt)")
        }
        // A PNG cut short in its image data is refused, not half converted.
        let png = try ImageTranscoder.encode(Self.gradient(width: 130, height: 150, alpha: false), as: .png, codec: codec)
        for format in [ImageFormat.jpeg, .bmp] {
            XCTAssertThrowsError(try ImageTranscoder.convert(Array(png.prefix(png.count * 2 / 3)), to: format, codec: codec, limits: ImageLimits()))
        }
    }

    func testLosslessFormatsRoundTripExactlyAndJPEGStaysAbove38dB() throws {
        let image = Self.gradient(width: 64, height: 40, alpha: true)
        for format in [ImageFormat.png, .tiff, .webp] {
            let bytes = try ImageTranscoder.encode(image, as: format, codec: codec)
            XCTAssertEqual(ImageFormat.sniff(bytes), format)
            XCTAssertEqual(try ImageTranscoder.decode(bytes, codec: codec, limits: ImageLimits()), image, "\(format)")
        }
        let opaque = Self.gradient(width: 64, height: 40, alpha: false)
        XCTAssertEqual(try ImageTranscoder.decode(try ImageTranscoder.encode(opaque, as: .bmp, codec: codec), codec: codec, limits: ImageLimits()), opaque)
        let jpeg = try ImageTranscoder.decode(try ImageTranscoder.encode(opaque, as: .jpeg, codec: codec), codec: codec, limits: ImageLimits())
        XCTAssertGreaterThan(Self.psnr(jpeg, opaque), 38)
        // Alpha is flattened onto white for JPEG and BMP.
        let flat = try ImageTranscoder.decode(try ImageTranscoder.encode(image, as: .bmp, codec: codec), codec: codec, limits: ImageLimits())
        XCTAssertEqual(flat, image.flattenedOntoWhite())
    }

    func testWebPIsLosslessFromLosslessSourcesAndLossyFromJPEG() throws {
        let opaque = Self.gradient(width: 64, height: 40, alpha: false)
        let fromJPEG = try ImageTranscoder.decode(try ImageTranscoder.encode(opaque, as: .jpeg, codec: codec), codec: codec, limits: ImageLimits())
        XCTAssertTrue(fromJPEG.fromLossySource)
        let lossy = try ImageTranscoder.encode(fromJPEG, as: .webp, codec: codec)
        XCTAssertEqual(Array(lossy[12..<16]), Array("VP8 ".utf8), "lossy WebP from a JPEG")
        let lossless = try ImageTranscoder.encode(opaque, as: .webp, codec: codec)
        XCTAssertTrue([Array("VP8L".utf8), Array("VP8X".utf8)].contains(Array(lossless[12..<16])), "lossless WebP from pixels")
    }

    func testHostileInputIsRefusedWithAClearReason() throws {
        let small = Self.gradient(width: 40, height: 30, alpha: false)
        for format in [ImageFormat.png, .jpeg, .tiff, .webp] {
            let bytes = try ImageTranscoder.encode(small, as: format, codec: codec)
            // Truncated at half: never served as a half-grey picture.
            XCTAssertThrowsError(try ImageTranscoder.decode(Array(bytes.prefix(bytes.count / 2)), codec: codec, limits: ImageLimits()),
                                 "\(format) truncated")
            // A cap below the picture's size: refused from the header.
            XCTAssertThrowsError(try codec.decode(bytes, format: format, limits: ImageLimits(maximumPixels: 1000))) { error in
                XCTAssertTrue("\(error)".contains("over the limit"), "\(format): \(error)")
            }
        }
        // A PNG bomb: IHDR says 100000 × 100000, the data is a few bytes.
        var png = try ImageTranscoder.encode(small, as: .png, codec: codec)
        png.replaceSubrange(16..<24, with: [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0])
        XCTAssertThrowsError(try ImageTranscoder.decode(png, codec: codec, limits: ImageLimits())) { error in
            XCTAssertTrue("\(error)".contains("over the limit"), "\(error)")
        }
        // A PNG whose header lies about its size (the CRC fixed up): more rows than data.
        var liar = try ImageTranscoder.encode(small, as: .png, codec: codec)
        liar.replaceSubrange(20..<24, with: [0, 0, 0x0F, 0xA0])
        let crc = Self.crc32(Array(liar[12..<29]))
        liar.replaceSubrange(29..<33, with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        XCTAssertThrowsError(try ImageTranscoder.decode(liar, codec: codec, limits: ImageLimits()))
        // A GIF with a 2-colour table whose pixels use index 3.
        let gif: [UInt8] = Array("GIF89a".utf8) + [2, 0, 1, 0, 0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
            + [0x2C, 0, 0, 0, 0, 2, 0, 1, 0, 0] + [2, 2, 0xDC, 0x0A, 0] + [0x3B]
        XCTAssertThrowsError(try ImageTranscoder.decode(gif, codec: codec, limits: ImageLimits())) { error in
            XCTAssertEqual("\(error)", "the GIF uses colour index 3, but its colour table has 2 colours")
        }
        // A TIFF whose first directory claims 60 000 entries beyond the end of the file.
        let tiff: [UInt8] = Array("II*\0".utf8) + [8, 0, 0, 0] + [0x60, 0xEA] + [UInt8](repeating: 0, count: 40)
        XCTAssertThrowsError(try ImageTranscoder.decode(tiff, codec: codec, limits: ImageLimits()))
        // A TIFF whose next directory is itself: the first is read, the chain never followed.
        var looped = try ImageTranscoder.encode(small, as: .tiff, codec: codec)
        let first = Int(looped[4]) | Int(looped[5]) << 8 | Int(looped[6]) << 16 | Int(looped[7]) << 24
        let entries = Int(looped[first]) | Int(looped[first + 1]) << 8
        looped.replaceSubrange((first + 2 + entries * 12)..<(first + 6 + entries * 12), with: looped[4..<8])
        XCTAssertEqual(try ImageTranscoder.decode(looped, codec: codec, limits: ImageLimits()), small)
        // Not a picture at all.
        XCTAssertThrowsError(try ImageTranscoder.decode(Array("hello".utf8), codec: codec, limits: ImageLimits()))
    }

    func testConversionsOnSeveralThreadsAtOnceGiveWhatOneThreadGives() throws {
        let image = Self.gradient(width: 120, height: 80, alpha: true)
        let formats: [ImageFormat] = [.png, .jpeg, .tiff, .webp, .bmp]
        let codec = self.codec
        let sources = try formats.map { try ImageTranscoder.encode(image, as: $0, codec: codec) }
        let serial = try sources.flatMap { source in try formats.map { try ImageTranscoder.convert(source, to: $0, codec: codec, limits: ImageLimits()) } }
        let results = Locked([[UInt8]?](repeating: nil, count: serial.count))
        DispatchQueue.concurrentPerform(iterations: serial.count * 4) { index in
            let job = index % serial.count
            let output = try? ImageTranscoder.convert(sources[job / formats.count], to: formats[job % formats.count], codec: codec, limits: ImageLimits())
            results.update { if $0[job] == nil || $0[job] == output { $0[job] = output } else { $0[job] = [] } }
        }
        XCTAssertEqual(results.value.map { $0 ?? [] }, serial)
    }

    // MARK: - Helpers

    static func gradient(width: Int, height: Int, alpha: Bool) -> PixelImage {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let a: UInt8 = alpha ? [255, 0, 128, 37, 255][(x / 8 + y / 8) % 5] : 255
                pixels += [UInt8(x * 255 / max(1, width - 1)), UInt8(y * 255 / max(1, height - 1)), UInt8((x + y) * 2 % 256), a]
            }
        }
        return PixelImage(width: width, height: height, pixels: pixels)
    }

    static func psnr(_ a: PixelImage, _ b: PixelImage) -> Double {
        var sum = 0.0
        for index in a.pixels.indices where index % 4 != 3 {
            let d = Double(a.pixels[index]) - Double(b.pixels[index])
            sum += d * d
        }
        let mse = sum / Double(a.width * a.height * 3)
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

/// A value shared by the threads of a test.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func update(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}
