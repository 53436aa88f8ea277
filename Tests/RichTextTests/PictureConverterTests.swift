// SPDX-License-Identifier: Apache-2.0
import RichText
import XCTest

/// The injected picture converter: what RTF and HTML cannot embed as it is becomes PNG; the rest stays.
final class PictureConverterTests: XCTestCase {
    /// Turns any attachment starting with "TIFF" into bytes "PNG:" + the rest; reads nothing else.
    struct FakePictures: PictureConverter {
        func png(from bytes: [UInt8]) -> [UInt8]? {
            bytes.starts(with: Array("TIFF".utf8)) ? Array("PNG:".utf8) + bytes.dropFirst(4) : nil
        }
    }

    func document(_ attachments: [Attachment]) -> AttributedDocument {
        AttributedDocument(paragraphs: [Paragraph(runs: attachments.map { TextRun("\u{FFFC}", CharacterAttributes(attachment: $0)) })])
    }

    func testOnlyWhatTheTargetCannotEmbedIsConverted() {
        let tiff = Attachment(fileName: "Shot.tiff", mimeType: "image/tiff", bytes: Array("TIFFdata".utf8))
        let gif = Attachment(fileName: "a.gif", mimeType: "image/gif", bytes: Array("TIFFgif".utf8))
        let pdf = Attachment(fileName: "b.pdf", mimeType: "application/pdf", bytes: Array("%PDF".utf8))
        let doc = document([tiff, gif, pdf])
        let forRTF = doc.embeddingPictures(for: .rtf, using: FakePictures()).attachments
        XCTAssertEqual(forRTF.map(\.mimeType), ["image/png", "image/png", "application/pdf"], "RTF has no GIF picture")
        XCTAssertEqual(forRTF[0].fileName, "Shot.png")
        XCTAssertEqual(forRTF[0].bytes, Array("PNG:data".utf8))
        let forHTML = doc.embeddingPictures(for: .html, using: FakePictures()).attachments
        XCTAssertEqual(forHTML.map(\.mimeType), ["image/png", "image/gif", "application/pdf"], "browsers show GIF")
        XCTAssertEqual(doc.embeddingPictures(for: .rtfd, using: FakePictures()), doc, "RTFD keeps its files")
    }

    func testTheConverterReachesTheWriters() throws {
        let doc = document([Attachment(fileName: "Shot.tiff", mimeType: "image/tiff", bytes: Array("TIFFdata".utf8))])
        let rtfd = FlatRTFD.writeDocument(doc).bytes
        let without = String(decoding: try RichTextConverter.convert(rtfd, from: .rtfd, to: .html).bytes, as: UTF8.self)
        XCTAssertTrue(without.contains("data:image/tiff"), "without a converter, as before")
        let with = String(decoding: try RichTextConverter.convert(rtfd, from: .rtfd, to: .html, pictures: FakePictures()).bytes, as: UTF8.self)
        XCTAssertTrue(with.contains("data:image/png;base64,UE5HOmRhdGE="), with)
    }
}
