// SPDX-License-Identifier: Apache-2.0
/// The formats `RichTextConverter` reads and writes.
public enum DocumentFormat: String, CaseIterable, Sendable {
    case txt, rtf, html
    /// Flat RTFD (`com.apple.flat-rtfd`), as on Apple pasteboards.
    case rtfd
    /// An RTFD bundle directory; `RTFDBundle` turns its files into flat RTFD and back (the caller reads and writes them).
    case rtfdDirectory = "rtfd-dir"
}

/// Bytes written plus what the conversion dropped or guessed.
public struct ConversionOutput: Sendable {
    public var bytes: [UInt8]
    public var warnings: [String]

    public init(bytes: [UInt8], warnings: [String] = []) {
        self.bytes = bytes
        self.warnings = warnings
    }
}

/// Conversions between plain text, RTF, HTML and flat RTFD, like macOS `textutil -convert`.
public enum RichTextConverter {
    /// Converts bytes of one format into another. Same format in and out returns the input bytes unchanged (passthrough).
    /// `rtfd` is flat RTFD (com.apple.flat-rtfd). `.rtfdDirectory` is not valid here (use RTFDBundle).
    /// `codePages` decodes the code pages RichText has no table for; pass a system decoder for double-byte text.
    /// `pictures` turns attachments the target cannot embed as they are (a TIFF for RTF or HTML) into PNG.
    public static func convert(
        _ input: [UInt8], from: DocumentFormat, to: DocumentFormat, codePages: any CodePageDecoder = BuiltInCodePages(),
        pictures: (any PictureConverter)? = nil
    ) throws -> ConversionOutput {
        guard from != .rtfdDirectory, to != .rtfdDirectory else {
            throw RichTextError(.unsupported, format: "convert", "RTFD directories are read and written with RTFDBundle")
        }
        if from == to { return ConversionOutput(bytes: input) }
        let read = try self.read(input, format: from, codePages: codePages)
        let document = pictures.map { read.document.embeddingPictures(for: to, using: $0) } ?? read.document
        var output = try write(document, format: to)
        output.warnings = read.warnings + output.warnings
        return output
    }

    /// Reads a document of any byte format.
    public static func read(
        _ input: [UInt8], format: DocumentFormat, codePages: any CodePageDecoder = BuiltInCodePages()
    ) throws -> ReadResult {
        switch format {
        case .txt: return PlainTextReader.read(input)
        case .rtf: return RTFReader.read(input, codePages: codePages)
        case .html: return HTMLReader.read(input, codePages: codePages)
        case .rtfd: return try FlatRTFD.readDocument(input, codePages: codePages)
        case .rtfdDirectory:
            throw RichTextError(.unsupported, format: "convert", "RTFD directories are read with RTFDBundle")
        }
    }

    /// Writes a document in any byte format.
    public static func write(_ document: AttributedDocument, format: DocumentFormat) throws -> ConversionOutput {
        switch format {
        case .txt: return ConversionOutput(bytes: PlainTextWriter.write(document))
        case .rtf: return RTFWriter.write(document)
        case .html: return HTMLWriter.write(document)
        case .rtfd: return FlatRTFD.writeDocument(document)
        case .rtfdDirectory:
            throw RichTextError(.unsupported, format: "convert", "RTFD directories are written with RTFDBundle")
        }
    }

    /// A short human description of a document (like `textutil -info`): format, characters, paragraphs, attachments, fonts, warnings.
    public static func info(
        _ input: [UInt8], format: DocumentFormat, codePages: any CodePageDecoder = BuiltInCodePages()
    ) throws -> String {
        let result = try read(input, format: format, codePages: codePages)
        let document = result.document
        var characters = 0
        var fonts: [String] = result.declaredFonts
        for paragraph in document.paragraphs {
            for run in paragraph.runs {
                characters += run.text.count
                if let f = run.attributes.fontFamily, !fonts.contains(f) { fonts.append(f) }
            }
        }
        characters += document.paragraphs.count - (document.endsWithParagraphBreak ? 0 : 1)
        let attachments = document.attachments
        let name: String
        switch format {
        case .txt: name = "plain text"
        case .rtf: name = "RTF"
        case .html: name = "HTML"
        case .rtfd, .rtfdDirectory: name = "RTFD"
        }
        var lines = [
            "Format: \(name)",
            "Size: \(input.count) bytes",
            "Characters: \(characters)",
            "Paragraphs: \(document.paragraphs.count)",
        ]
        var attachmentLine = "Attachments: \(attachments.count)"
        if !attachments.isEmpty { attachmentLine += " (" + attachments.map(\.fileName).joined(separator: ", ") + ")" }
        lines.append(attachmentLine)
        lines.append("Fonts: " + (fonts.isEmpty ? "none" : fonts.joined(separator: ", ")))
        if result.warnings.isEmpty {
            lines.append("Warnings: none")
        } else {
            lines.append("Warnings:")
            lines += result.warnings.map { "  " + $0 }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
