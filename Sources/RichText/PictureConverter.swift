// SPDX-License-Identifier: Apache-2.0
/// Re-encodes a picture that a format cannot embed as it is (a TIFF screenshot in an RTFD, for RTF's
/// `\pngblip` or an HTML `data:` URI). RichText is pure: the image codecs are injected by its callers, as
/// code pages are (`CodePageDecoder`); PasteboardCore's converters pass the system's.
public protocol PictureConverter: Sendable {
    /// `bytes` as PNG, or nil when they are not a picture the converter reads (or cannot be converted).
    func png(from bytes: [UInt8]) -> [UInt8]?
}

extension AttributedDocument {
    /// The MIME types each format embeds as they are: RTF `\pngblip` and `\jpegblip`; HTML `data:` URIs in
    /// PNG, JPEG and GIF, which every browser and LibreOffice show.
    static func embeddedPictureTypes(for format: DocumentFormat) -> Set<String>? {
        switch format {
        case .rtf: ["image/png", "image/jpeg"]
        case .html: ["image/png", "image/jpeg", "image/gif"]
        default: nil
        }
    }

    /// The document with every attachment that `format` cannot embed as it is (TIFF, BMP, WebP; GIF for
    /// RTF) turned into PNG by `converter` — its bytes, MIME type and file extension. Attachments the
    /// converter does not read stay as they are (the writer then drops them with a warning, as before).
    public func embeddingPictures(for format: DocumentFormat, using converter: any PictureConverter) -> AttributedDocument {
        guard let embedded = Self.embeddedPictureTypes(for: format) else { return self }
        var copy = self
        for p in copy.paragraphs.indices {
            for r in copy.paragraphs[p].runs.indices {
                guard var attachment = copy.paragraphs[p].runs[r].attributes.attachment,
                      !embedded.contains(attachment.mimeType), !attachment.bytes.isEmpty,
                      let png = converter.png(from: attachment.bytes) else { continue }
                attachment.bytes = png
                attachment.mimeType = "image/png"
                let stem = attachment.fileName.split(separator: ".", omittingEmptySubsequences: false).dropLast().joined(separator: ".")
                attachment.fileName = (stem.isEmpty ? attachment.fileName : stem) + ".png"
                copy.paragraphs[p].runs[r].attributes.attachment = attachment
            }
        }
        return copy
    }
}
