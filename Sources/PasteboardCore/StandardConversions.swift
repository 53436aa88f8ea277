// SPDX-License-Identifier: Apache-2.0
import RichText
import Selection

extension ConversionTable {
    /// The families pasteboard knows today — plain text, rich text, images and files — with their X
    /// targets and converters. A new family is added here as rows and converter functions.
    public static let standard = ConversionTable(standardRows: richTextRows + plainTextRows + imageRows + fileRows)

    /// The standard table's converters: closures over the codecs, made only when a plan first needs one.
    static var standardConverters: [Converter] {
        plainTextConverters + richTextConverters + imageConverters + fileConverters
    }

    // MARK: - Plain text

    /// The X targets that carry plain text, in the order owners list them and readers prefer them
    /// (`UTF8_STRING` first, as xclip and xsel ask).
    static let plainTextRows: [TypeRow] = [
        TypeRow(.utf8String, .utf8Text, .plainText),
        TypeRow(.utf8PlainText, .utf8Text, .plainText),
        TypeRow(.plainText, .utf8Text, .plainText),
        TypeRow(.string, .latin1Text, .plainText),
        TypeRow(.text, .ownerChosenText, .plainText, replyMayBeAnyOfFamily: true, readBySnapshots: false),
        TypeRow(.compoundText, .compoundText, .plainText, readBySnapshots: false),
    ]

    /// Text is kept as UTF-8; the other encodings are derived from it. `STRING` is ISO-8859-1: characters
    /// outside it become `?` (docs/formats.md). `TEXT` is answered as `STRING` when every character fits
    /// Latin-1 and as `UTF8_STRING` otherwise (ICCCM lets the owner choose; the reply is never typed TEXT).
    static let plainTextConverters: [Converter] = [
        Converter(.utf8Text, to: .latin1Text, .lossy) { input, _ in ConverterOutput(Latin1.encode(utf8: input)) },
        Converter(.latin1Text, to: .utf8Text, .exact) { input, _ in ConverterOutput(Latin1.decode(input)) },
        Converter(.utf8Text, to: .ownerChosenText, .exact) { input, _ in
            Latin1.canEncode(utf8: input) ? ConverterOutput(Latin1.encode(utf8: input), servedAs: .string)
                                          : ConverterOutput(input, servedAs: .utf8String)
        },
        Converter(.ownerChosenText, to: .utf8Text, .exact) { input, _ in
            // Bytes kept under TEXT itself: UTF-8 when they are valid UTF-8, else Latin-1.
            ConverterOutput(String(validating: input, as: UTF8.self) != nil ? input : Latin1.decode(input))
        },
        Converter(.utf8Text, to: .compoundText, .exact, needsCallerThread: true) { input, services throws(ConversionFailure) in
            guard let codec = services.compoundText else { throw ConversionFailure("no X connection to encode COMPOUND_TEXT") }
            guard let encoded = codec.compoundText(fromUTF8: input) else { throw ConversionFailure("Xlib cannot encode this text") }
            return ConverterOutput(encoded)
        },
        Converter(.compoundText, to: .utf8Text, .exact, needsCallerThread: true) { input, services throws(ConversionFailure) in
            guard let codec = services.compoundText else { throw ConversionFailure("no X connection to decode COMPOUND_TEXT") }
            guard let decoded = codec.utf8(fromCompoundText: input) else { throw ConversionFailure("Xlib cannot decode it") }
            return ConverterOutput(decoded)
        },
    ]

    // MARK: - Rich text

    /// Rich text, richest first: flat RTFD, RTF (LibreOffice puts the same RTF under `text/richtext`,
    /// AbiWord under `application/rtf`), HTML.
    static let richTextRows: [TypeRow] = [
        TypeRow(.flatRTFD, .flatRTFD, .richText),
        TypeRow(.rtf, .rtf, .richText),
        TypeRow(.applicationRTF, .rtf, .richText),
        TypeRow(.richText, .rtf, .richText),
        TypeRow(.html, .html, .richText),
    ]

    /// Rich text converts between its formats through RichText's document model; to plain text it drops
    /// the formatting. Plain text becomes rich text only by inventing paragraphs: RTFD is listed for the apps
    /// that ask for it by name, RTF and HTML are made only when asked for by name (listed, they would win
    /// over the text in browsers and LibreOffice, which then paste paragraphs, no blank lines, no tabs).
    static let richTextConverters: [Converter] = {
        let formats: [(RepresentationFormat, DocumentFormat)] = [(.flatRTFD, .rtfd), (.rtf, .rtf), (.html, .html)]
        var converters: [Converter] = []
        for (from, fromDocument) in formats {
            for (to, toDocument) in formats where to != from {
                converters.append(Converter(from, to: to, .faithful, document(from: fromDocument, to: toDocument)))
            }
            converters.append(Converter(from, to: .utf8Text, .lossy, document(from: fromDocument, to: .txt)))
            converters.append(Converter(.utf8Text, to: from, .invented, advertised: from == .flatRTFD,
                                        document(from: .txt, to: fromDocument)))
        }
        return converters
    }()

    private static func document(from: DocumentFormat, to: DocumentFormat) -> Converter.Function {
        { input, services throws(ConversionFailure) in
            do {
                return ConverterOutput(try RichTextConverter.convert(input, from: from, to: to, codePages: services.codePages,
                                                                     pictures: services.pictures).bytes)
            } catch {
                throw ConversionFailure("\(error)")
            }
        }
    }

    // MARK: - Files

    /// Files a file manager copied or cut, richest first: GNOME's list (the action and the URIs; MATE's
    /// Caja names the same bytes its own way), the URI list, and KDE's cut marker, which qualifies the URI
    /// list beside it.
    static let fileRows: [TypeRow] = [
        TypeRow(.gnomeCopiedFiles, .copiedFiles, .files),
        TypeRow(.mateCopiedFiles, .copiedFiles, .files),
        TypeRow(.uriList, .uriList, .files),
        TypeRow(.kdeCutSelection, .kdeCutMarker, .files),
    ]

    /// Every file manager reads one of these: GNOME's list gives the URI list and KDE's marker; the URI list
    /// gives GNOME's list (a cut when KDE's marker beside it says so) and the paths as text, so a copy in
    /// Dolphin pastes in Thunar and the other way round. Text never becomes files: a path someone copied as
    /// text would otherwise paste as the file itself in a file manager.
    static let fileConverters: [Converter] = [
        Converter(.copiedFiles, to: .uriList, .lossy) { input, _ throws(ConversionFailure) in
            ConverterOutput(try fileList(input, FileList.init(copiedFiles:)).uriList)
        },
        Converter(.copiedFiles, to: .kdeCutMarker, .lossy) { input, _ throws(ConversionFailure) in
            ConverterOutput(try fileList(input, FileList.init(copiedFiles:)).kdeCutMarker)
        },
        Converter(.uriList, to: .copiedFiles, .exact, companion: .kdeCutSelection) { input, services throws(ConversionFailure) in
            let action = services.companions[.kdeCutSelection].map(FileList.action(fromKDECutMarker:)) ?? .copy
            return ConverterOutput(try fileList(input) { (bytes) throws(FileListError) in try FileList(uriList: bytes, action: action) }.copiedFiles)
        },
        Converter(.uriList, to: .utf8Text, .lossy) { input, _ throws(ConversionFailure) in
            ConverterOutput(try fileList(input) { (bytes) throws(FileListError) in try FileList(uriList: bytes) }.text)
        },
    ]

    private static func fileList(_ bytes: [UInt8], _ parse: ([UInt8]) throws(FileListError) -> FileList) throws(ConversionFailure) -> FileList {
        do { return try parse(bytes) } catch { throw ConversionFailure("\(error)") }
    }
}
