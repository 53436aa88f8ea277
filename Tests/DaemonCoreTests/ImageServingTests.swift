// SPDX-License-Identifier: Apache-2.0
import ControlProtocol
@testable import DaemonCore
import Foundation
import ImageCodecs
import Images
import PasteboardCore
import RichText
import SystemSupport
import TestSupport
import XCTest
import XTypes

/// Pictures the daemon holds: every image type listed, the original served untouched, derived types made
/// on their first request on the worker with the real codecs, cached, refused (and logged once, without
/// content) when they cannot be made.
final class ImageServingTests: XCTestCase {
    let codec = SystemImageCodec()

    static func picture(width: Int = 48, height: Int = 32, alpha: Bool = false) -> PixelImage {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                pixels += [UInt8(x * 5 % 256), UInt8(y * 7 % 256), UInt8((x ^ y) % 256), alpha && x < 8 ? 0 : 255]
            }
        }
        return PixelImage(width: width, height: height, pixels: pixels)
    }

    func copy(_ h: Harness, _ representations: [(PasteboardType, [UInt8])]) throws {
        let answer = h.send(.setItems(pasteboard: "CLIPBOARD", items: [try PasteboardItem(representations)], options: []))
        guard case .changeCount? = answer.first else { return XCTFail("setItems answered \(answer)") }
    }

    func bytes(_ requestor: FakeRequestor) -> [UInt8]? {
        guard case .some(.some(let value)) = requestor.result else { return nil }
        return value.bytes
    }

    func testAJPEGOnlyCopyIsServedUnderEveryImageTypeAndTheOriginalUntouched() throws {
        let h = try Harness()
        let jpeg = try ImageTranscoder.encode(Self.picture(), as: .jpeg, codec: codec)
        try copy(h, [(.jpeg, jpeg)])
        let targets = h.targets()
        for name in ["image/jpeg", "image/png", "image/bmp", "image/x-bmp", "image/x-MS-bmp", "image/tiff", "image/webp"] {
            XCTAssertTrue(targets.contains(name), "\(name) in \(targets)")
        }
        XCTAssertFalse(targets.contains("image/gif"), "GIF is not written")
        XCTAssertEqual(bytes(h.paste("image/jpeg")), jpeg, "the original bytes, untouched")
        let decodedJPEG = try ImageTranscoder.decode(jpeg, codec: codec, limits: ImageLimits())
        for (name, format) in [("image/png", ImageFormat.png), ("image/bmp", .bmp), ("image/x-MS-bmp", .bmp), ("image/tiff", .tiff)] {
            let requestor = h.paste(name)
            XCTAssertEqual(requestor.typeName, name)
            let data = try XCTUnwrap(bytes(requestor), name)
            XCTAssertEqual(ImageFormat.sniff(data), format, name)
            XCTAssertEqual(try ImageTranscoder.decode(data, codec: codec, limits: ImageLimits()).pixels, decodedJPEG.pixels,
                           "\(name): the JPEG's pixels exactly")
        }
        let webp = try XCTUnwrap(bytes(h.paste("image/webp")))
        XCTAssertEqual(Array(webp[12..<16]), Array("VP8 ".utf8), "a lossy source makes a lossy WebP")
    }

    func testADerivedPictureIsMadeOnceAndCachedForTheChange() throws {
        let h = try Harness()
        let png = try ImageTranscoder.encode(Self.picture(alpha: true), as: .png, codec: codec)
        try copy(h, [(.png, png)])
        let first = try XCTUnwrap(bytes(h.paste("image/jpeg")))
        XCTAssertEqual(h.engine.service.server.conversions.pendingCount, 0)
        // Asked again without waiting: answered at once from the cache, no job started.
        let again = h.paste("image/jpeg", waitForConversions: false)
        XCTAssertEqual(bytes(again), first)
        // Alpha flattened onto white for JPEG.
        let decoded = try ImageTranscoder.decode(first, codec: codec, limits: ImageLimits())
        XCTAssertTrue(decoded.isOpaque)
        XCTAssertGreaterThan(decoded.pixels[0], 240, "a transparent pixel became white")
    }

    func testAPictureThatCannotBeDecodedIsRefusedAndLoggedOnceWithoutContent() throws {
        let h = try Harness()
        var png = try ImageTranscoder.encode(Self.picture(), as: .png, codec: codec)
        png.removeLast(png.count / 2)   // truncated: its original is still served as given
        try copy(h, [(.png, png + Array("SECRET-BYTES".utf8))])
        XCTAssertNil(bytes(h.paste("image/bmp")), "refused, never garbage")
        XCTAssertNil(bytes(h.paste("image/bmp")), "and refused again without converting again")
        XCTAssertEqual(h.log.filter { $0.contains("could not derive image/bmp") }.count, 1, "\(h.log)")
        XCTAssertFalse(h.log.contains { $0.contains("SECRET") }, "no content in the log")
        XCTAssertNotNil(bytes(h.paste("image/png")), "the original is served untouched")
        guard case .error(let code, let message)? = h.send(.read(pasteboard: "CLIPBOARD", types: ["image/bmp"], display: ":99")).first else {
            return XCTFail("no error")
        }
        XCTAssertEqual(code, .conversionFailed)
        XCTAssertTrue(message.contains("image/bmp"), message)
    }

    func testThePixelCapFromTheConfigurationRefusesABombWhileOtherPastesAreServed() throws {
        var configuration = DaemonConfiguration()
        configuration.maxImagePixels = 1000
        let h = try Harness(configuration: configuration)
        try copy(h, [(.png, try ImageTranscoder.encode(Self.picture(), as: .png, codec: codec)), (.utf8PlainText, Array("caption".utf8))])
        XCTAssertNil(bytes(h.paste("image/webp")))
        XCTAssertTrue(h.log.contains { $0.contains("over the limit of 1000 pixels") }, "\(h.log)")
        XCTAssertEqual(h.paste("UTF8_STRING").text, "caption")
    }

    func testAControlReadGetsTheConvertedPicture() throws {
        let h = try Harness()
        let picture = Self.picture()
        try copy(h, [(.tiff, try ImageTranscoder.encode(picture, as: .tiff, codec: codec))])
        guard case .items(let items)? = h.send(.read(pasteboard: "CLIPBOARD", types: ["image/png"], display: ":99")).first else {
            return XCTFail("no items")
        }
        let png = try XCTUnwrap(items.first?.data(for: .png))
        XCTAssertEqual(try ImageTranscoder.decode(png, codec: codec, limits: ImageLimits()), picture, "TIFF → PNG keeps every pixel")
    }
}

/// Pictures inside rich text: an RTFD made on a Mac with a TIFF screenshot pastes as HTML and RTF with the
/// picture as PNG; an HTML image that names a file is never read.
final class RichTextPictureTests: XCTestCase {
    func testAnRTFDsTIFFAttachmentBecomesPNGInHTMLAndRTF() throws {
        let codec = SystemImageCodec()
        let picture = ImageServingTests.picture(width: 40, height: 24)
        let tiff = try ImageTranscoder.encode(picture, as: .tiff, codec: codec)
        let document = AttributedDocument(paragraphs: [
            Paragraph(runs: [TextRun("Screenshot: "), TextRun("\u{FFFC}", CharacterAttributes(
                attachment: Attachment(fileName: "Screen Shot.tiff", mimeType: "image/tiff", bytes: tiff, width: 40, height: 24)))]),
        ])
        let rtfd = FlatRTFD.writeDocument(document).bytes
        let h = try Harness()
        let answer = h.send(.setItems(pasteboard: "CLIPBOARD", items: [try PasteboardItem([(.flatRTFD, rtfd)])], options: []))
        guard case .changeCount? = answer.first else { return XCTFail("\(answer)") }

        let html = try XCTUnwrap(h.paste("text/html").text)
        let marker = "data:image/png;base64,"
        let start = try XCTUnwrap(html.range(of: marker), html.prefix(300).description).upperBound
        let base64 = html[start...].prefix { $0 != "\"" }
        let png = try XCTUnwrap(Data(base64Encoded: String(base64)))
        XCTAssertEqual(try ImageTranscoder.decode([UInt8](png), codec: codec, limits: ImageLimits()), picture, "the screenshot's pixels")
        XCTAssertFalse(html.contains("image/tiff"))

        let rtf = try XCTUnwrap(h.paste("text/rtf").text)
        XCTAssertTrue(rtf.contains("\\pngblip"), String(rtf.prefix(400)))
    }

    func testAnHTMLImageNamingAFileIsNeverRead() throws {
        let h = try Harness()
        let html = #"<p>before <img src="file:///etc/passwd"> after</p>"#
        try h.copy([(.html, html)])
        let rtf = try XCTUnwrap(h.paste("text/rtf").text)
        XCTAssertFalse(rtf.contains("\\pict"), "no picture made from a local file")
        XCTAssertFalse(rtf.contains("root:"), "nothing of the file")
        XCTAssertTrue(rtf.contains("before") && rtf.contains("after"))
    }
}
