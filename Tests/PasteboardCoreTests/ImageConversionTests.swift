// SPDX-License-Identifier: Apache-2.0
import Images
import PasteboardCore
import XCTest

/// The image family's rows and converters: what is listed, which source a plan reads, what runs.
final class ImageConversionTests: XCTestCase {
    let table = ConversionTable.standard
    let written: [PasteboardType] = [.png, .tiff, .bmp, PasteboardType("image/x-bmp"), PasteboardType("image/x-MS-bmp"), .webp, .jpeg]

    func testAnyPictureListsEveryWrittenTypeAfterItsOwn() {
        for source in [PasteboardType.png, .jpeg, .gif, .bmp, .tiff, .webp] {
            let listed = table.advertisedTypes(for: [source])
            XCTAssertEqual(listed.first, source)
            XCTAssertEqual(Set(listed), Set(written + [source]), "\(source): \(listed)")
        }
        XCTAssertEqual(table.advertisedTypes(for: [.jpeg]), [.jpeg, .png, .tiff, .bmp, PasteboardType("image/x-bmp"), PasteboardType("image/x-MS-bmp"), .webp])
        XCTAssertNil(table.plan(producing: .gif, from: [.png]), "GIF is read, not written")
    }

    func testPlansReadLosslessSourcesFirstInOneStep() throws {
        XCTAssertEqual(table.plan(producing: .bmp, from: [.jpeg, .png])?.source, .png, "PNG before JPEG")
        XCTAssertEqual(table.plan(producing: .webp, from: [.jpeg, .tiff])?.source, .tiff)
        XCTAssertEqual(table.plan(producing: .png, from: [.jpeg, .gif])?.source, .gif)
        XCTAssertEqual(table.plan(producing: .jpeg, from: [.png, .jpeg])?.isIdentity, true, "an offered type is served as it is")
        let plan = try XCTUnwrap(table.plan(producing: .png, from: [.tiff]))
        XCTAssertEqual(plan.steps.count, 1, "decoded once, encoded once")
        XCTAssertEqual(plan.fidelity, .faithful)
        XCTAssertEqual(table.plan(producing: .jpeg, from: [.png])?.fidelity, .lossy)
        XCTAssertEqual(table.plan(producing: PasteboardType("image/x-MS-bmp"), from: [.bmp])?.isIdentity, true, "an alias")
    }

    func testTextAndPicturesNeverConvertIntoEachOther() {
        XCTAssertNil(table.plan(producing: .png, from: [.utf8String, .html, .rtf]))
        XCTAssertNil(table.plan(producing: .utf8String, from: [.png, .jpeg]))
        XCTAssertFalse(table.advertisedTypes(for: [.utf8PlainText]).contains(.png))
    }

    func testAConverterRunsThePolicyOnTheInjectedCodecAndSaysWhenThereIsNone() throws {
        let plan = try XCTUnwrap(table.plan(producing: .bmp, from: [.png]))
        let png = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [0, 0, 0, 13] + Array("IHDR".utf8) + [0, 0, 0, 2, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 9)
        XCTAssertThrowsError(try plan.run(png, services: ConversionServices())) { error in
            XCTAssertEqual("\(error)", "cannot convert PNG to BMP: no image codecs are available here")
        }
        // A codec that decodes any PNG to two pixels, one half transparent: BMP flattens it onto white.
        let services = ConversionServices(images: TwoPixels())
        let bmp = try plan.run(png, services: services)
        XCTAssertEqual(bmp.type, .bmp)
        let decoded = try BMPCodec.decode(bmp.data, limits: ImageLimits())
        XCTAssertEqual(decoded.pixels, [255, 0, 0, 255, 127, 127, 255, 255], "(0 × 128 + 255 × 127) / 255")
        // The pixel cap comes from the services, and is checked from the header before the codec runs.
        XCTAssertThrowsError(try plan.run(png, services: ConversionServices(images: TwoPixels(), imageLimits: ImageLimits(maximumPixels: 1)))) { error in
            XCTAssertTrue("\(error)".contains("over the limit of 1 pixels"), "\(error)")
        }
    }

    func testTheClipboardManagerReadsOnePictureAndRichTextUnderItsOwnCap() {
        let policy = SnapshotPolicy(textCap: 8 << 20, imageCap: 64 << 20)
        let plan = policy.readingPlan(offered: ["image/jpeg", "image/bmp", "image/png", "image/x-icon", "UTF8_STRING", "TARGETS"])
        XCTAssertEqual(plan.groups.map(\.targets), [["UTF8_STRING"], ["image/png", "image/bmp", "image/jpeg"], ["image/x-icon"]],
                       "one picture is read (the others of the family are derived when served), the next only if it fails")
        XCTAssertEqual(policy.readingPlan(offered: ["image/gif", "image/jpeg"]).groups.map(\.targets), [["image/gif", "image/jpeg"]],
                       "lossless first")
        XCTAssertEqual(policy.cap(for: "text/rtf"), 64 << 20, "pictures travel inside rich text")
        XCTAssertEqual(policy.cap(for: "text/plain"), 8 << 20)
        XCTAssertEqual(policy.cap(for: "image/webp"), 64 << 20)
    }

    func testContentDescribesItsFirstPictureFromTheHeader() throws {
        let bmp = try BMPCodec.encode(PixelImage(width: 3, height: 2, pixels: [UInt8](repeating: 9, count: 24)))
        let content = PasteboardContent(items: [try PasteboardItem([(.utf8PlainText, Array("x".utf8)), (.bmp, bmp)])])
        XCTAssertEqual(content.imageSummary(), ImageSummary(type: .bmp, width: 3, height: 2, byteCount: bmp.count))
        XCTAssertEqual(content.imageSummary()?.description, "image/bmp 3×2 \(bmp.count) bytes")
        XCTAssertNil(PasteboardContent(items: [try PasteboardItem([(.png, Array("not a png".utf8))])]).imageSummary())
        XCTAssertEqual(PasteboardType.imageType(of: bmp), .bmp)
        XCTAssertEqual(PasteboardType.named("jpeg"), .jpeg)
        XCTAssertEqual(PasteboardType.named("public.tiff"), .tiff)
    }

    /// pb checks a picture sent from its file from its first bytes only: a header cut off by their end is no
    /// problem found (the rest may complete it), while bad magic bytes or a malformed field within them are.
    func testAPictureJudgedFromItsFirstBytesIsFaultedOnlyForWhatThoseBytesShow() {
        func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        // A TIFF whose first directory is at byte 1 000 000 (as libtiff writes it: after the pixels).
        let tiffHead = Array("II*\0".utf8) + le32(1_000_000) + [UInt8](repeating: 0, count: 4096)
        XCTAssertNil(PasteboardContent.pictureProblem(tiffHead, truncatedAt: 1_000_200), "its directory lies past the first bytes")
        XCTAssertNotNil(PasteboardContent.pictureProblem(tiffHead), "as a whole picture, these bytes are truncated")
        // A JPEG whose frame header lies past them; then one whose first marker is not one.
        let jpegHead: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE1, 0xFF, 0xF0] + [UInt8](repeating: 0, count: 1000)
        XCTAssertNil(PasteboardContent.pictureProblem(jpegHead, truncatedAt: 70_000))
        XCTAssertNotNil(PasteboardContent.pictureProblem([0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x01, 0, 0] + [UInt8](repeating: 0, count: 100), truncatedAt: 70_000),
                        "a segment shorter than its length field is wrong whatever follows")
        XCTAssertNotNil(PasteboardContent.pictureProblem([UInt8](repeating: 0x41, count: 4096), truncatedAt: 1 << 20), "no picture's magic bytes")
    }
}

/// A codec that gives two pixels for anything: opaque red and half-transparent blue.
private struct TwoPixels: ImageCodec {
    func decode(_ bytes: [UInt8], format: ImageFormat, limits: ImageLimits) throws(ImageError) -> PixelImage {
        PixelImage(width: 2, height: 1, pixels: [255, 0, 0, 255, 0, 0, 255, 128])
    }
    func encode(_ image: consuming PixelImage, format: ImageFormat, settings: ImageEncodeSettings) throws(ImageError) -> [UInt8] {
        throw ImageError("not used")
    }
}
