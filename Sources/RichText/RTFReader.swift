// SPDX-License-Identifier: Apache-2.0
/// A document read from some format, with what the reader had to guess or drop.
public struct ReadResult: Sendable {
    public var document: AttributedDocument
    public var warnings: [String]
    /// Font names declared by the document (RTF font table), in table order.
    public var declaredFonts: [String]

    public init(document: AttributedDocument, warnings: [String] = [], declaredFonts: [String] = []) {
        self.document = document
        self.warnings = warnings
        self.declaredFonts = declaredFonts
    }
}

/// Reads RTF (spec 1.9.1 plus Word, WordPad, LibreOffice and Cocoa dialects) into an `AttributedDocument`.
///
/// Never throws and never traps: malformed input yields the best text it can plus warnings. Groups live on a
/// heap stack (100 000 nested groups are fine; beyond `maximumGroupDepth` nesting is counted, not stored).
/// Fragments without `{\rtf1` are read as a document body. Attachments referenced by `\NeXTGraphic` carry a
/// file name and no bytes; `FlatRTFD` fills them in.
public enum RTFReader {
    /// Deeper groups keep their text but share their parent's formatting state.
    public static let maximumGroupDepth = 200_000

    /// Reads RTF; `codePages` decodes the code pages RichText has no table for (double-byte ones above all).
    public static func read(_ bytes: [UInt8], codePages: any CodePageDecoder = BuiltInCodePages()) -> ReadResult {
        bytes.withUnsafeBufferPointer { buffer in
            var parser = RTFParser(input: buffer, codePageDecoder: codePages)
            parser.run()
            return parser.finish()
        }
    }
}

private enum Destination: UInt8 {
    case text, fontTable, colorTable, fieldInstruction, picture, nextGraphic, listText, dropText
    /// A field result inside another field's instruction: its text belongs to the outer instruction.
    case nestedFieldResult
    /// `\stylesheet` entries: text is the style name.
    case styleSheet
    /// `\listtable` and `\listoverridetable`: words only.
    case listTable
    /// `\leveltext` of a list level: the number template.
    case levelText
    /// `\shp`, `\shpinst`, `\sp`, `\*\do`: property names and values are not text.
    case shape
    /// `\sn`: a shape property's name.
    case shapePropertyName
    /// `\*\pn` (Word 95 paragraph numbering) and its `\pntxta`/`\pntxtb` texts.
    case paragraphNumbering, numberTextAfter, numberTextBefore
}

private enum GroupRole: UInt8 {
    case none, picture, nextGraphic, field, list, listLevel, lfoLevel, listOverride, shapeText, paragraphNumbering
}

/// Which set of character properties `\b \i \fs \f` and their associated forms change, as LibreOffice 7.4
/// decides: right-to-left runs (`\rtlch`) and `\hich` address the complex-script set, the rest the western and
/// East Asian one; `\dbch` makes `\f`/`\af` name the East Asian font.
private enum RunType: UInt8 {
    case none, loch, hich, dbch
}

/// Bold, italic, size and font of complex-script text (Hebrew, Arabic, Indic, Thai …): `\ab \ai \afs \af`.
private struct ComplexScriptAttributes: Equatable {
    var bold = false
    var italic = false
    var fontSize: Double?
    var fontFamily: String?
}

private struct RTFParagraphState: Equatable {
    var alignment = TextAlignment.natural
    var leftIndent = 0, rightIndent = 0, firstLineIndent = 0, spaceBefore = 0, spaceAfter = 0
    var outlineLevel: Int?
    var inTable = false
    var listID = 0
    var listLevel = 0
    var hasListLevel = false
    var style = 0
}

private struct GroupState {
    var destination = Destination.text
    var role = GroupRole.none
    var char = CharacterAttributes()
    var complex = ComplexScriptAttributes()
    var eastAsianFont: String?
    var rightToLeft = false
    var runType = RunType.none
    var para = RTFParagraphState()
    var uc = 1
    /// 0 means the document's code page; negative numbers are the symbol-font pseudo pages.
    var codePage = 0
    /// Whether a picture ending in this group is shown (body text, or a shape's `pib` property).
    var showsPictures = false
}

private struct FontEntry {
    var name: String
    var codePage: Int?
}

/// A `\stylesheet` entry: what the reader uses of a paragraph style.
private struct StyleEntry {
    var name = ""
    var outlineLevel: Int?
    var listID = 0
    var listLevel = 0
}

/// One level of a `\listtable` list: how its number is formatted.
private struct ListLevelDefinition {
    /// Word's `\levelnfc`: 0 decimal, 1/2 upper/lower roman, 3/4 upper/lower letter, 23 bullet, 255 none …
    var numberFormat = 0
    var startAt = 1
    /// The number template after its length: scalars 0–8 stand for the numbers of those levels.
    var template: [Unicode.Scalar] = []
    var legal = false
    var noRestart = false
    var font: Int?
}

/// A list override (`\lsN`): the list it uses and the levels whose start it changes.
private struct ListOverride {
    var listID = 0
    var startAt: [Int: Int] = [:]
    /// Levels the override redefines (`\lfolevel\listoverrideformat{\listlevel …}`).
    var formats: [Int: ListLevelDefinition] = [:]
    var levelsSeen = 0
}

/// Word 95 numbering of a paragraph (`{\*\pn \pnlvlbody\pndec{\pntxta .}}`): the list it continues and its texts.
private struct ParagraphNumbering: Equatable {
    var bullet = false
    var numberFormat = 0
    var start = 1
    var before = String.UnicodeScalarView()
    var after = String.UnicodeScalarView()
    var font: Int?

    static func == (a: ParagraphNumbering, b: ParagraphNumbering) -> Bool {
        a.bullet == b.bullet && a.numberFormat == b.numberFormat && a.start == b.start
            && String(a.before) == String(b.before) && String(a.after) == String(b.after) && a.font == b.font
    }
}

/// A cell of the current row definition (`\clmgf … \cellxN`).
private struct CellDefinition {
    var right = 0
    var merge = CellMerge.none
}

private enum CellMerge { case none, horizontalStart, horizontalContinue, verticalStart, verticalContinue }

private enum PictureKind { case png, jpeg, gif, emf, wmf, pict, bitmap, unknown }

private struct PictureState {
    var kind = PictureKind.unknown
    var data: [UInt8] = []
    var highNibble: UInt8?
    var width = 0, height = 0, widthGoal = 0, heightGoal = 0, scaleX = 100, scaleY = 100
}

private struct FieldState {
    var instruction = ""
}

private struct RTFParser {
    let input: UnsafeBufferPointer<UInt8>
    var position = 0
    let keywords = RTFKeywordTable.shared

    var cur = GroupState()
    var stack: [GroupState] = []
    var overflowDepth = 0
    var rootOpened = false
    var finished = false

    // Document
    /// Whether the document uses associated character properties (`\ab`, `\rtlch` …). Until it does, `\b`
    /// and its kin apply to every script, as Cocoa and pandoc mean them.
    var associatedPropertiesSeen = false
    var documentCodePage = 1252
    var defaultFont = 0
    var fonts: [Int: FontEntry] = [:]
    var fontOrder: [String] = []
    var colors: [RGBColor?] = []
    var codePages: [Int: CodePage] = [:]
    let codePageDecoder: any CodePageDecoder

    // Table building
    var fontEntryIndex: Int?
    var fontEntryCharset: Int?
    var fontEntryCodePage: Int?
    var fontEntryName = String.UnicodeScalarView()
    var colorRed = -1, colorGreen = -1, colorBlue = -1

    // Characters
    var skipRemaining = 0
    var pendingLead: UInt8?
    var pendingLeadPage: CodePage?
    var pendingHighSurrogate: UInt32?
    var ignorablePending = false
    var dropPlaceholder = false

    // Output
    var runBytes: [UInt8] = []
    var runAttributes = CharacterAttributes()
    var charVersion = 1
    var runVersion = 0
    var runScript = ScriptClass.western
    var paragraphRuns: [TextRun] = []
    var paragraphs: [Paragraph] = []
    var listMarker = String.UnicodeScalarView()
    /// Whether the current paragraph had a `\listtext`/`\pntext` group (an empty one means "no visible list").
    var listTextSeen = false
    /// Paragraph state when the root group closed, for a last paragraph without `\par`.
    var finalParagraph: RTFParagraphState?

    // Tables, fields, pictures
    var tableOpen = false
    var tableCount = 0
    var tableRow = 0
    var tableColumn = 0
    var rowIsHeader = false
    var cellHasParagraph = false
    var fields: [FieldState] = []
    var picture = PictureState()
    var pictureCount = 0
    var nextGraphicName = String.UnicodeScalarView()
    var nextGraphicWidth = 0, nextGraphicHeight = 0

    // Styles, lists, shapes, footnotes
    var styles: [Int: StyleEntry] = [:]
    /// The nesting depth of the `\stylesheet` group: its entries are the groups one level deeper.
    var styleSheetDepth = -1
    var styleEntry = StyleEntry()
    var styleIndex = 0
    var styleName = String.UnicodeScalarView()
    var lists: [Int: [ListLevelDefinition]] = [:]
    var listLevels: [ListLevelDefinition] = []
    var listLevel = ListLevelDefinition()
    var listDefinitionID = 0
    var levelTextScalars: [Unicode.Scalar] = []
    var overrides: [Int: ListOverride] = [:]
    var listOverride = ListOverride()
    var listOverrideIndex = 0
    var lfoLevel: Int?
    /// Numbers so far per list override and level.
    var listCounters: [Int: [Int?]] = [:]
    var shapePropertyName = String.UnicodeScalarView()
    /// The body paragraph interrupted by shape or text-box text, restored when that text ends.
    var interruptedRuns: [[TextRun]] = []
    /// Shape texts nested deeper than `interruptedRuns` keeps (they continue the paragraph they are in).
    var shapeTextOverflow = 0
    var footnoteCount = 0
    /// The `\pn` numbering being read, the one of the current paragraphs, and the lists numbered so far.
    var numberingBeingRead = ParagraphNumbering()
    var paragraphNumbering: ParagraphNumbering?
    var numberingLists: [(numbering: ParagraphNumbering, count: Int)] = []

    // Table rows: the definition and merged cells
    var cellDefinitions: [CellDefinition] = []
    var pendingMerge = CellMerge.none
    var cellFirstParagraph = 0
    /// Paragraph indices of the cell a horizontal merge started in.
    var horizontalMergeStart: [Int]?
    /// Paragraph indices of cells a vertical merge started in, by their right edge.
    var verticalMergeStarts: [Int: [Int]] = [:]
    /// The current table's cells with their edges, to span the grid columns a wide cell covers.
    var tableCells: [(paragraphs: Range<Int>, left: Int, right: Int)] = []

    var warnings: [String] = []
    var warningSet: Set<String> = []

    init(input: UnsafeBufferPointer<UInt8>, codePageDecoder: any CodePageDecoder) {
        self.input = input
        self.codePageDecoder = codePageDecoder
        runBytes.reserveCapacity(256)
    }

    mutating func warn(_ message: String) {
        guard warnings.count < 50, !warningSet.contains(message) else { return }
        warningSet.insert(message)
        warnings.append(message)
    }

    // MARK: - Main loop

    mutating func run() {
        let end = input.count
        // A document that starts with `{\rtf` ends with its matching `}`; a fragment runs to the end.
        var first = 0
        while first < end, input[first] == 0x20 || input[first] == 0x0A || input[first] == 0x0D || input[first] == 0x09 {
            first += 1
        }
        rootOpened = end - first >= 5 && input[first] == 0x7B && input[first + 1] == 0x5C && input[first + 2] == 0x72
            && input[first + 3] == 0x74 && input[first + 4] == 0x66  // {\rtf
        while position < end && !finished {
            let byte = input[position]
            switch byte {
            case 0x5C:  // backslash
                position += 1
                controlSequence()
            case 0x7B:  // {
                position += 1
                openGroup()
            case 0x7D:  // }
                position += 1
                closeGroup()
            case 0x0D, 0x0A:
                position += 1
            case 0x09:
                position += 1
                character(0x09)
            default:
                if cur.destination == .text && skipRemaining == 0 && pendingLead == nil && pendingHighSurrogate == nil
                    && !dropPlaceholder && byte < 0x80 && cur.codePage >= 0
                {
                    asciiRun()
                } else if cur.destination == .picture {
                    pictureHex()
                } else {
                    position += 1
                    literalByte(byte)
                }
            }
        }
        if finished {
            var rest = position
            while rest < end, input[rest] <= 0x20 || input[rest] == 0x7D { rest += 1 }
            if rest < end { warn("ignored data after the end of the document") }
        } else if !stack.isEmpty || overflowDepth > 0 {
            warn("unterminated groups: \(stack.count + overflowDepth) closed at end of input")
            flushPendingLead()
            finalParagraph = cur.para
            while !stack.isEmpty { popGroup() }
        }
    }

    /// Appends a run of printable ASCII text in one go.
    mutating func asciiRun() {
        syncRunAttributes()
        let start = position
        var index = position
        let end = input.count
        while index < end {
            let b = input[index]
            if b < 0x20 || b >= 0x80 || b == 0x5C || b == 0x7B || b == 0x7D { break }
            index += 1
        }
        runBytes.append(contentsOf: input[start..<index])
        position = index
        if start == index {  // a control byte other than TAB/CR/LF: ignore it
            position += 1
        }
    }

    /// Hex digits of picture data, whitespace ignored.
    mutating func pictureHex() {
        let end = input.count
        while position < end {
            let b = input[position]
            let nibble: UInt8
            switch b {
            case 0x30...0x39: nibble = b - 0x30
            case 0x61...0x66: nibble = b - 0x61 + 10
            case 0x41...0x46: nibble = b - 0x41 + 10
            case 0x20, 0x09, 0x0A, 0x0D:
                position += 1
                continue
            default:
                if b == 0x5C || b == 0x7B || b == 0x7D { return }
                position += 1
                continue
            }
            position += 1
            if let high = picture.highNibble {
                picture.data.append(high << 4 | nibble)
                picture.highNibble = nil
            } else {
                picture.highNibble = nibble
            }
        }
    }

    // MARK: - Groups

    mutating func openGroup() {
        flushPendingLead()
        skipRemaining = 0
        ignorablePending = false
        if stack.count >= RTFReader.maximumGroupDepth {
            if overflowDepth == 0 { warn("groups nested deeper than \(RTFReader.maximumGroupDepth); inner formatting flattened") }
            overflowDepth += 1
            return
        }
        stack.append(cur)
        cur.role = .none
    }

    mutating func closeGroup() {
        flushPendingLead()
        skipRemaining = 0
        ignorablePending = false
        if overflowDepth > 0 {
            overflowDepth -= 1
            return
        }
        if stack.isEmpty {
            if rootOpened { finished = true } else { warn("ignored unmatched }") }
            return
        }
        if stack.count == 1 && rootOpened { finalParagraph = cur.para }
        popGroup()
        if stack.isEmpty && rootOpened { finished = true }
    }

    mutating func popGroup() {
        if cur.role == .shapeText { endShapeText() }
        if cur.destination == .styleSheet && stack.count == styleSheetDepth + 1 { finishStyleEntry() }
        let closing = cur
        cur = stack.removeLast()
        charVersion &+= 1
        if closing.destination == .fontTable { finishFontEntry(requireName: true) }
        switch closing.role {
        case .none, .shapeText: break
        case .picture: finishPicture()
        case .nextGraphic: finishNextGraphic()
        case .field: finishField()
        case .listLevel: finishListLevel()
        case .paragraphNumbering: paragraphNumbering = numberingBeingRead
        case .lfoLevel: lfoLevel = nil
        case .list:
            if lists.count < 1000 { lists[listDefinitionID] = listLevels }
            listLevels = []
        case .listOverride:
            if overrides.count < 1000 { overrides[listOverrideIndex] = listOverride }
        }
    }

    /// Skips to just after the `}` closing the current group, honouring `\\`, `\{`, `\}` and `\binN`, then pops it.
    mutating func skipGroup() {
        var depth = 1
        let end = input.count
        while position < end {
            let b = input[position]
            position += 1
            if b == 0x7B {
                depth += 1
            } else if b == 0x7D {
                depth -= 1
                if depth == 0 { break }
            } else if b == 0x5C, position < end {
                let next = input[position]
                if next == 0x62, position + 2 < end, input[position + 1] == 0x69, input[position + 2] == 0x6E,
                    position + 3 >= end || !isLetter(input[position + 3])
                {
                    position += 3
                    let n = readNumber() ?? 0
                    if position < end, input[position] == 0x20 { position += 1 }
                    position += clampBinaryLength(n)
                } else {
                    position += 1
                }
            }
        }
        if depth > 0 { warn("unterminated group skipped at end of input") }
        skipRemaining = 0
        if overflowDepth > 0 {
            overflowDepth -= 1
        } else if !stack.isEmpty {
            popGroup()
            if stack.isEmpty && rootOpened { finished = true }
        }
    }

    // MARK: - Control words and symbols

    @inline(__always) func isLetter(_ b: UInt8) -> Bool { (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) }

    /// Reads an optional signed decimal number, clamped to 32 bits.
    mutating func readNumber() -> Int? {
        let end = input.count
        var negative = false
        var index = position
        if index < end, input[index] == 0x2D {
            negative = true
            index += 1
        }
        let digitsStart = index
        var value: Int64 = 0
        while index < end, input[index] >= 0x30, input[index] <= 0x39 {
            if value < 10_000_000_000 { value = value * 10 + Int64(input[index] - 0x30) }
            index += 1
        }
        guard index > digitsStart else { return nil }
        position = index
        if negative { value = -value }
        return Int(max(Int64(Int32.min), min(Int64(Int32.max), value)))
    }

    mutating func clampBinaryLength(_ n: Int) -> Int {
        let remaining = input.count - position
        if n < 0 { return 0 }
        if n > remaining {
            warn("\\bin length \(n) runs past the end of input")
            return remaining
        }
        return n
    }

    mutating func controlSequence() {
        let end = input.count
        guard position < end else {
            warn("backslash at end of input")
            return
        }
        let b = input[position]
        if !isLetter(b) {
            position += 1
            controlSymbol(b)
            return
        }
        let start = position
        while position < end, isLetter(input[position]) { position += 1 }
        let wordEnd = min(position, start + 32)
        let parameter = readNumber()
        if position < end, input[position] == 0x20 { position += 1 }
        let keyword = position - start > 32 && wordEnd - start == 32 ? nil : keywords.lookup(input, start, wordEnd)
        if skipRemaining > 0 {
            skipRemaining -= 1
            if keyword == .bin { position += clampBinaryLength(parameter ?? 0) }
            return
        }
        let wasIgnorable = ignorablePending
        ignorablePending = false
        if keyword == .footnote { footnoteCount += 1 }
        guard let keyword else {
            if wasIgnorable { skipDestination() }
            return
        }
        if wasIgnorable && !keyword.isUnderstoodAfterStar {
            skipDestination()
            return
        }
        if keyword.isSkippedDestination {
            skipDestination()
            return
        }
        if keyword != .u { flushPendingLead() }
        controlWord(keyword, parameter)
    }

    /// Skips the rest of the current group, unless it is the root (then the word is just ignored).
    mutating func skipDestination() {
        if stack.isEmpty && overflowDepth == 0 { return }
        skipGroup()
    }

    mutating func controlSymbol(_ b: UInt8) {
        switch b {
        case 0x5C, 0x7B, 0x7D:  // \\ \{ \}
            literalByte(b)
        case 0x27:  // \'hh
            var value: UInt8 = 0
            var digits = 0
            while digits < 2, position < input.count, let nibble = hexValue(input[position]) {
                value = value << 4 | nibble
                digits += 1
                position += 1
            }
            if digits < 2 {  // `\'` cut off (at the end of input or before a non-hex character): no byte
                warn("\\' without two hex digits")
                return
            }
            if cur.destination == .picture { return }
            literalByte(value)
        case 0x2A:  // \*
            if skipRemaining > 0 { skipRemaining -= 1; return }
            ignorablePending = true
        case 0x0A, 0x0D:  // \⏎ = \par
            if skipRemaining > 0 { skipRemaining -= 1; return }
            flushPendingLead()
            paragraphBreak()
        case 0x7E: special("\u{00A0}")
        case 0x2D: special("\u{00AD}")
        case 0x5F: special("\u{2011}")
        case 0x09: special("\t")
        default:  // \| \: and unknown symbols
            if skipRemaining > 0 { skipRemaining -= 1 }
        }
    }

    @inline(__always) func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 0x30...0x39: return b - 0x30
        case 0x61...0x66: return b - 0x61 + 10
        case 0x41...0x46: return b - 0x41 + 10
        default: return nil
        }
    }

    /// A special character written as a control word or symbol: one fallback unit.
    mutating func special(_ scalar: Unicode.Scalar) {
        if skipRemaining > 0 { skipRemaining -= 1; return }
        flushPendingLead()
        put(scalar)
    }

    mutating func controlWord(_ keyword: RTFKeyword, _ parameter: Int?) {
        let n = parameter ?? 0
        let on = parameter.map { $0 != 0 } ?? true
        switch keyword {
        case .rtf: break
        case .ansi: documentCodePage = 1252
        case .mac: documentCodePage = 10000
        case .pc: documentCodePage = 437
        case .pca: documentCodePage = 850
        case .ansicpg: if n > 0 { documentCodePage = n }
        case .deff: defaultFont = n
        case .uc: cur.uc = max(0, min(n, 10))
        case .u: unicode(n)
        case .bin:
            let length = clampBinaryLength(n)
            if cur.destination == .picture {
                picture.data.append(contentsOf: input[position..<position + length])
            }
            position += length
        case .upr:
            cur.destination = .dropText
        case .ud, .result:
            if cur.destination == .dropText { cur.destination = .text }
        case .fonttbl:
            cur.destination = .fontTable
        case .colortbl:
            cur.destination = .colorTable
            colors = []
            colorRed = -1; colorGreen = -1; colorBlue = -1
        case .field:
            cur.role = .field
            fields.append(FieldState())
        case .fldinst:
            cur.destination = .fieldInstruction
        case .fldrslt:
            if cur.destination == .fieldInstruction || cur.destination == .nestedFieldResult {
                cur.destination = .nestedFieldResult
            } else if let instruction = fields.last?.instruction, RTFParser.symbolField(instruction) != nil {
                cur.destination = .dropText  // the symbol is inserted when the field ends, as LibreOffice does
            } else {
                cur.destination = .text
                if let instruction = fields.last?.instruction, let link = RTFParser.hyperlink(instruction) {
                    cur.char.link = link
                    charVersion &+= 1
                }
            }
        case .pict:
            cur.destination = .picture
            cur.role = .picture
            picture = PictureState()
        case .shppict: break
        case .nextGraphic:
            cur.destination = .nextGraphic
            cur.role = .nextGraphic
            nextGraphicName = String.UnicodeScalarView()
            nextGraphicWidth = 0
            nextGraphicHeight = 0
        case .listtext, .pntext:
            cur.destination = .listText
            listMarker = String.UnicodeScalarView()
            listTextSeen = true
        case .object:
            cur.destination = .dropText
        case .f, .af:
            if keyword == .af { associatedPropertiesSeen = true }
            if cur.destination == .fontTable {
                if keyword == .f {
                    finishFontEntry(requireName: true)
                    fontEntryIndex = n
                }
            } else if cur.destination == .listTable {
                if keyword == .f { listLevel.font = n }
            } else {
                selectFont(n, encoding: keyword == .f)
            }
        case .fcharset: if cur.destination == .fontTable { fontEntryCharset = n }
        case .cpg: if cur.destination == .fontTable { fontEntryCodePage = n }
        case .fnil, .froman, .fswiss, .fmodern, .fscript, .fdecor, .ftech, .fbidi: break
        case .red: colorRed = max(0, min(n, 255))
        case .green: colorGreen = max(0, min(n, 255))
        case .blue: colorBlue = max(0, min(n, 255))
        case .plain:
            let link = cur.char.link
            cur.char = CharacterAttributes()
            cur.char.link = link
            cur.complex = ComplexScriptAttributes()
            cur.eastAsianFont = nil
            cur.rightToLeft = false
            cur.runType = .none
            selectFont(defaultFont, setFamily: false)
            charVersion &+= 1
        case .b, .ab:
            if keyword == .ab { associatedPropertiesSeen = true }
            if complexTarget { cur.complex.bold = on } else { cur.char.bold = on }
            charVersion &+= 1
        case .i, .ai:
            if keyword == .ai { associatedPropertiesSeen = true }
            if complexTarget { cur.complex.italic = on } else { cur.char.italic = on }
            charVersion &+= 1
        case .rtlch, .ltrch:
            associatedPropertiesSeen = true
            cur.rightToLeft = keyword == .rtlch
            charVersion &+= 1
        case .loch, .hich, .dbch:
            associatedPropertiesSeen = true
            cur.runType = keyword == .loch ? .loch : keyword == .hich ? .hich : .dbch
        case .ul: setChar { $0.underline = on ? .single : .none }
        case .ulnone: setChar { $0.underline = .none }
        case .uldb, .ululdbwave: setChar { $0.underline = on ? .double : .none }
        case .ulw: setChar { $0.underline = on ? .words : .none }
        case .uld: setChar { $0.underline = on ? .dotted : .none }
        case .uldash, .uldashd, .uldashdd, .ulldash, .ulthdash, .ulthdashd, .ulthdashdd, .ulthldash:
            setChar { $0.underline = on ? .dashed : .none }
        case .ulwave, .ulhwave, .ulthwave: setChar { $0.underline = on ? .wave : .none }
        case .ulth, .ulthd: setChar { $0.underline = on ? .thick : .none }
        case .strike: setChar { $0.strikethrough = on ? .single : .none }
        case .striked: setChar { $0.strikethrough = on ? .double : .none }
        case .fs, .afs:
            if keyword == .afs { associatedPropertiesSeen = true }
            let size = n > 0 ? Double(min(n, 32767)) / 2 : nil
            if complexTarget { cur.complex.fontSize = size } else { cur.char.fontSize = size }
            charVersion &+= 1
        case .cf: let c = color(n); setChar { $0.foregroundColor = c }
        case .cb, .highlight, .chcbpat: let c = color(n); setChar { $0.backgroundColor = c }
        case .superscript: setChar { $0.baseline = .superscript }
        case .subscript: setChar { $0.baseline = .subscript }
        case .nosupersub: setChar { $0.baseline = .normal }
        case .up: setChar { $0.baseline = n > 0 ? .superscript : .normal }
        case .dn: setChar { $0.baseline = n > 0 ? .subscript : .normal }
        case .v: setChar { $0.hidden = on }
        case .par, .sect:
            if cur.destination == .text {
                paragraphBreak()
            } else if cur.destination == .listText {
                bodyInListText()
            }
        case .pard:
            cur.para = RTFParagraphState()
            paragraphNumbering = nil
        case .pn:
            cur.destination = .paragraphNumbering
            cur.role = .paragraphNumbering
            numberingBeingRead = ParagraphNumbering()
        case .pnlvlblt: numberingBeingRead.bullet = true
        case .pnlvlbody, .pnlvlcont: numberingBeingRead.bullet = false
        case .pndec: numberingBeingRead.numberFormat = 0
        case .pnucrm: numberingBeingRead.numberFormat = 1
        case .pnlcrm: numberingBeingRead.numberFormat = 2
        case .pnucltr: numberingBeingRead.numberFormat = 3
        case .pnlcltr: numberingBeingRead.numberFormat = 4
        case .pnstart: numberingBeingRead.start = n
        case .pnf: numberingBeingRead.font = n
        case .pntxta: if cur.destination == .paragraphNumbering { cur.destination = .numberTextAfter }
        case .pntxtb: if cur.destination == .paragraphNumbering { cur.destination = .numberTextBefore }
        case .s:
            if cur.destination == .styleSheet { styleIndex = n } else { cur.para.style = n }
        case .ql: cur.para.alignment = .left
        case .qc: cur.para.alignment = .center
        case .qr: cur.para.alignment = .right
        case .qj: cur.para.alignment = .justified
        case .li, .lin: cur.para.leftIndent = n
        case .ri, .rin: cur.para.rightIndent = n
        case .fi: cur.para.firstLineIndent = n
        case .sb: cur.para.spaceBefore = n
        case .sa: cur.para.spaceAfter = n
        case .outlinelevel: cur.para.outlineLevel = n >= 0 && n < 6 ? n : nil
        case .intbl: cur.para.inTable = on
        case .cell:
            if cur.destination == .text {
                cur.para.inTable = true
                // `text\par\cell` (pandoc, Word) ends the cell's last paragraph once, not twice.
                if !(cellHasParagraph && runBytes.isEmpty && paragraphRuns.isEmpty) { paragraphBreak() }
                mergeCell(tableColumn)
                tableColumn += 1
                cellHasParagraph = false
                cellFirstParagraph = paragraphs.count
            }
        case .row:
            if cur.destination == .text {
                if !runBytes.isEmpty || !paragraphRuns.isEmpty { paragraphBreak() }
                tableRow += 1
                tableColumn = 0
                cellHasParagraph = false
                cellFirstParagraph = paragraphs.count
                horizontalMergeStart = nil
            }
        case .trowd:
            rowIsHeader = false
            cellDefinitions.removeAll(keepingCapacity: true)
            pendingMerge = .none
        case .clmgf: pendingMerge = .horizontalStart
        case .clmrg: pendingMerge = .horizontalContinue
        case .clvmgf: pendingMerge = .verticalStart
        case .clvmrg: pendingMerge = .verticalContinue
        case .cellx:
            if cellDefinitions.count < RTFParser.maximumCellsPerRow {
                cellDefinitions.append(CellDefinition(right: n, merge: pendingMerge))
            }
            pendingMerge = .none
        case .trhdr: rowIsHeader = true
        case .nestcell: put("\t")
        case .nestrow: put("\u{2028}")
        case .ls:
            if cur.destination == .listTable { listOverrideIndex = n } else { cur.para.listID = n }
        case .ilvl:
            cur.para.listLevel = max(0, min(n, 8))
            cur.para.hasListLevel = true
        case .listtable, .listoverridetable:
            cur.destination = .listTable
        case .list:
            if cur.destination == .listTable {
                cur.role = .list
                listLevels = []
                listDefinitionID = 0
            }
        case .listlevel:
            if cur.destination == .listTable {
                cur.role = .listLevel
                listLevel = ListLevelDefinition()
                levelTextScalars = []
            }
        case .levelnfc, .levelnfcn: listLevel.numberFormat = n
        case .levelstartat:
            if let level = lfoLevel, cur.role != .listLevel {
                if listOverride.startAt.count < 9 { listOverride.startAt[level] = n }
            } else {
                listLevel.startAt = n
            }
        case .leveltext:
            if cur.destination == .listTable {
                cur.destination = .levelText
                levelTextScalars = []
            }
        case .levellegal: listLevel.legal = on
        case .levelnorestart: listLevel.noRestart = on
        case .levelfollow: break
        case .listid:
            if cur.role == .listOverride { listOverride.listID = n } else { listDefinitionID = n }
        case .listoverride:
            if cur.destination == .listTable {
                cur.role = .listOverride
                listOverride = ListOverride()
                listOverrideIndex = 0
            }
        case .lfolevel:
            if cur.destination == .listTable {
                cur.role = .lfoLevel
                listOverride.levelsSeen += 1
                lfoLevel = listOverride.levelsSeen - 1
            }
        case .listoverridestartat: break
        case .stylesheet:
            cur.destination = .styleSheet
            styleSheetDepth = stack.count
            styleIndex = 0
            styleName = String.UnicodeScalarView()
        case .shp, .shpgrp, .shpinst, .do:
            cur.destination = .shape
            cur.showsPictures = false
        case .sp: break
        case .sn:
            cur.destination = .shapePropertyName
            shapePropertyName = String.UnicodeScalarView()
        case .sv:
            cur.destination = .shape
            cur.showsPictures = String(shapePropertyName) == "pib"
        case .shptxt, .dptxbxtext:
            beginShapeText()
        case .chftn:
            if cur.destination == .text {
                for scalar in String(footnoteCount + 1).unicodeScalars { put(scalar) }
            }
        case .ftnalt: break
        case .line: put("\u{2028}")
        case .page: put("\u{000C}")
        case .tab: put("\t")
        case .emdash: put("\u{2014}")
        case .endash: put("\u{2013}")
        case .bullet: put("\u{2022}")
        case .lquote: put("\u{2018}")
        case .rquote: put("\u{2019}")
        case .ldblquote: put("\u{201C}")
        case .rdblquote: put("\u{201D}")
        case .emspace: put("\u{2003}")
        case .enspace: put("\u{2002}")
        case .qmspace: put("\u{2005}")
        case .zwj: put("\u{200D}")
        case .zwnj: put("\u{200C}")
        case .ltrmark: put("\u{200E}")
        case .rtlmark: put("\u{200F}")
        case .pngblip: picture.kind = .png
        case .jpegblip: picture.kind = .jpeg
        case .emfblip: picture.kind = .emf
        case .wmetafile: picture.kind = .wmf
        case .macpict: picture.kind = .pict
        case .dibitmap, .wbitmap: picture.kind = .bitmap
        case .picw: picture.width = n
        case .pich: picture.height = n
        case .picwgoal: picture.widthGoal = n
        case .pichgoal: picture.heightGoal = n
        case .picscalex: picture.scaleX = n
        case .picscaley: picture.scaleY = n
        case .width: if cur.destination == .nextGraphic { nextGraphicWidth = n }
        case .height: if cur.destination == .nextGraphic { nextGraphicHeight = n }
        case .info, .nonshppict, .header, .headerl, .headerr, .headerf, .footer, .footerl, .footerr,
            .footerf, .footnote, .annotation, .themedata, .colorschememapping, .datastore, .latentstyles, .rsidtbl,
            .pgdsctbl, .revtbl, .xmlnstbl, .generator, .keywords, .comment, .title, .author, .listname, .listpicture,
            .shprslt, .levelnumbers:
            break  // handled as skipped destinations before we get here
        }
    }

    /// Whether `\b \i \fs \f` and their associated forms now address complex-script text (LibreOffice 7.4's rule).
    var complexTarget: Bool { cur.rightToLeft || cur.runType == .hich }

    @inline(__always)
    mutating func setChar(_ change: (inout CharacterAttributes) -> Void) {
        change(&cur.char)
        charVersion &+= 1
    }

    func color(_ index: Int) -> RGBColor? {
        guard index > 0, index < colors.count else { return nil }
        return colors[index]
    }

    /// `\fN` or `\afN`: the font of the script the run type addresses; `\f` also sets the code page.
    mutating func selectFont(_ index: Int, setFamily: Bool = true, encoding: Bool = true) {
        let entry = fonts[index] ?? fonts[defaultFont]
        if encoding { cur.codePage = entry?.codePage ?? 0 }
        guard setFamily else {
            cur.char.fontFamily = nil
            return
        }
        if complexTarget {
            cur.complex.fontFamily = entry?.name
        } else if cur.runType == .dbch {
            cur.eastAsianFont = entry?.name
        } else {
            cur.char.fontFamily = entry?.name
        }
        charVersion &+= 1
    }

    // MARK: - Tables of the header

    mutating func finishFontEntry(requireName: Bool) {
        guard let index = fontEntryIndex else { return }
        var name = String(fontEntryName)
        while name.last == " " { name.removeLast() }
        while name.first == " " { name.removeFirst() }
        // A group closing inside an entry (`{\*\panose …}` before the name) does not end it.
        if requireName && name.isEmpty { return }
        let symbolFont = SymbolFont.forFont(name: name, charset: fontEntryCharset)
        let codePage = symbolFont?.codePage ?? fontEntryCodePage ?? fontEntryCharset.flatMap(CodePage.forCharset)
        fonts[index] = FontEntry(name: name, codePage: codePage)
        if !name.isEmpty { fontOrder.append(name) }
        fontEntryIndex = nil
        fontEntryCharset = nil
        fontEntryCodePage = nil
        fontEntryName = String.UnicodeScalarView()
    }

    mutating func finishColorEntry() {
        if colorRed < 0 && colorGreen < 0 && colorBlue < 0 {
            colors.append(nil)
        } else {
            colors.append(RGBColor(red: UInt8(max(colorRed, 0)), green: UInt8(max(colorGreen, 0)), blue: UInt8(max(colorBlue, 0))))
        }
        colorRed = -1; colorGreen = -1; colorBlue = -1
    }

    // MARK: - Characters

    /// The code page for `\'hh` and raw bytes in the current group (font tables use the entry's own page).
    mutating func currentCodePage() -> CodePage {
        var number = cur.codePage
        if cur.destination == .fontTable {
            number = fontEntryCodePage ?? fontEntryCharset.flatMap(CodePage.forCharset) ?? 0
            if number < 0 { number = 0 }  // a symbol font's name is text, not symbols
        }
        if number == 0 { number = documentCodePage }
        if let page = codePages[number] { return page }
        let page = CodePage(number, decoder: codePageDecoder)
        codePages[number] = page
        return page
    }

    /// One byte of text in the current code page (from `\'hh`, `\\ \{ \}`, or written raw).
    mutating func literalByte(_ byte: UInt8) {
        if skipRemaining > 0 {
            skipRemaining -= 1
            return
        }
        switch cur.destination {
        case .picture:
            return
        case .fontTable where byte == 0x3B:  // ;
            flushPendingLead()
            finishFontEntry(requireName: false)
            return
        case .colorTable:
            if byte == 0x3B { finishColorEntry() }
            return
        case .styleSheet where byte == 0x3B:
            finishStyleEntry()
            return
        default: break
        }
        if let lead = pendingLead, let page = pendingLeadPage {
            pendingLead = nil
            pendingLeadPage = nil
            for scalar in page.decode(lead: lead, trail: byte).unicodeScalars { put(scalar) }
            return
        }
        let page = currentCodePage()
        if page.isLeadByte(byte) {
            pendingLead = byte
            pendingLeadPage = page
            return
        }
        put(page.decode(byte))
    }

    /// A lead byte not followed by its trail byte becomes U+FFFD.
    @inline(__always)
    mutating func flushPendingLead() {
        if pendingLead != nil {
            pendingLead = nil
            pendingLeadPage = nil
            put("\u{FFFD}")
        }
    }

    /// `\uN`: signed 16-bit, surrogate pairs joined, then `\ucN` fallback units skipped.
    mutating func unicode(_ n: Int) {
        flushPendingLead()
        var value = n < 0 ? n + 65536 : n
        if value < 0 || value > 0xFFFF { value = 0xFFFD }
        let unit = UInt32(value)
        if (0xD800...0xDBFF).contains(unit) {
            if pendingHighSurrogate != nil { emit("\u{FFFD}") }
            pendingHighSurrogate = unit
        } else if (0xDC00...0xDFFF).contains(unit) {
            if let high = pendingHighSurrogate {
                pendingHighSurrogate = nil
                let scalarValue = 0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00)
                emit(Unicode.Scalar(scalarValue) ?? "\u{FFFD}")
            } else {
                emit("\u{FFFD}")
            }
        } else {
            put(Unicode.Scalar(unit) ?? "\u{FFFD}")
        }
        skipRemaining = cur.uc
    }

    /// A decoded character: settles a pending high surrogate first.
    @inline(__always)
    mutating func put(_ scalar: Unicode.Scalar) {
        if pendingHighSurrogate != nil {
            pendingHighSurrogate = nil
            emit("\u{FFFD}")
        }
        emit(scalar)
    }

    /// A literal character such as TAB: one fallback unit.
    mutating func character(_ byte: UInt8) {
        if skipRemaining > 0 {
            skipRemaining -= 1
            return
        }
        flushPendingLead()
        put(Unicode.Scalar(byte))
    }

    /// Routes a character to the current destination.
    mutating func emit(_ scalar: Unicode.Scalar) {
        switch cur.destination {
        case .text:
            if dropPlaceholder {
                dropPlaceholder = false
                if scalar == "\u{00AC}" { return }
            }
            var scalar = scalar
            if cur.codePage < 0, let symbolFont = SymbolFont.forCodePage(cur.codePage) {
                scalar = symbolFont.mapPrivateUse(scalar)
            }
            syncRunAttributes(scalar.value < 0x0590 ? .western : ScriptClass.of(scalar))
            appendUTF8(scalar)
        case .nestedFieldResult:
            if fields.count >= 2 { fields[fields.count - 2].instruction.unicodeScalars.append(scalar) }
        case .styleSheet:
            if styleName.count < 256 { styleName.append(scalar) }
        case .levelText:
            if levelTextScalars.count < 64 { levelTextScalars.append(scalar) }
        case .shapePropertyName:
            if shapePropertyName.count < 64 { shapePropertyName.append(scalar) }
        case .numberTextAfter:
            if numberingBeingRead.after.count < 32 { numberingBeingRead.after.append(scalar) }
        case .numberTextBefore:
            if numberingBeingRead.before.count < 32 { numberingBeingRead.before.append(scalar) }
        case .paragraphNumbering:
            break
        case .listTable, .shape:
            break
        case .fontTable:
            if fontEntryIndex != nil { fontEntryName.append(scalar) }
        case .fieldInstruction:
            if !fields.isEmpty { fields[fields.count - 1].instruction.unicodeScalars.append(scalar) }
        case .nextGraphic:
            nextGraphicName.append(scalar)
        case .listText:
            listMarker.append(scalar)
        case .colorTable, .picture, .dropText:
            break
        }
    }

    @inline(__always)
    mutating func appendUTF8(_ scalar: Unicode.Scalar) {
        let v = scalar.value
        if v < 0x80 {
            runBytes.append(UInt8(v))
        } else if v < 0x800 {
            runBytes.append(UInt8(0xC0 | (v >> 6)))
            runBytes.append(UInt8(0x80 | (v & 0x3F)))
        } else if v < 0x10000 {
            runBytes.append(UInt8(0xE0 | (v >> 12)))
            runBytes.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            runBytes.append(UInt8(0x80 | (v & 0x3F)))
        } else {
            runBytes.append(UInt8(0xF0 | (v >> 18)))
            runBytes.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
            runBytes.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            runBytes.append(UInt8(0x80 | (v & 0x3F)))
        }
    }

    // MARK: - Runs and paragraphs

    /// Makes the run's attributes those of the current group for text of `script` (ASCII is western).
    @inline(__always)
    mutating func syncRunAttributes(_ script: ScriptClass = .western) {
        if runVersion == charVersion && runScript == script { return }
        runVersion = charVersion
        runScript = script
        if script == .western || !associatedPropertiesSeen {
            // The common case compares in place: no copy of the attributes (and their strings) per brace.
            if cur.char != runAttributes {
                flushRun()
                runAttributes = cur.char
            }
            return
        }
        let attributes = effectiveAttributes(script)
        if attributes != runAttributes {
            flushRun()
            runAttributes = attributes
        }
    }

    /// Complex-script text takes the associated properties, East Asian text the `\dbch` font.
    func effectiveAttributes(_ script: ScriptClass) -> CharacterAttributes {
        guard associatedPropertiesSeen else { return cur.char }
        var a = cur.char
        switch script {
        case .western: break
        case .eastAsian:
            if let font = cur.eastAsianFont { a.fontFamily = font }
        case .complex:
            a.bold = cur.complex.bold
            a.italic = cur.complex.italic
            if let size = cur.complex.fontSize { a.fontSize = size }
            if let font = cur.complex.fontFamily { a.fontFamily = font }
        }
        return a
    }

    mutating func flushRun() {
        guard !runBytes.isEmpty else { return }
        paragraphRuns.append(TextRun(String(decoding: runBytes, as: UTF8.self), runAttributes))
        runBytes.removeAll(keepingCapacity: true)
    }

    mutating func insertAttachment(_ attachment: Attachment) {
        guard cur.destination == .text || cur.showsPictures else { return }
        if pendingHighSurrogate != nil {
            pendingHighSurrogate = nil
            emit("\u{FFFD}")
        }
        flushRun()
        var attributes = cur.char
        attributes.attachment = attachment
        paragraphRuns.append(TextRun("\u{FFFC}", attributes))
    }

    mutating func paragraphBreak() {
        if pendingHighSurrogate != nil {
            pendingHighSurrogate = nil
            emit("\u{FFFD}")
        }
        dropPlaceholder = false
        flushRun()
        paragraphs.append(Paragraph(runs: paragraphRuns, attributes: paragraphAttributes()))
        paragraphRuns = []
        listMarker = String.UnicodeScalarView()
        listTextSeen = false
    }

    mutating func paragraphAttributes() -> ParagraphAttributes {
        let p = cur.para
        let style = styles[p.style]
        var attributes = ParagraphAttributes(
            alignment: p.alignment,
            firstLineIndent: Double(p.firstLineIndent) / 20,
            leftIndent: Double(p.leftIndent) / 20,
            rightIndent: Double(p.rightIndent) / 20,
            spaceBefore: Double(p.spaceBefore) / 20,
            spaceAfter: Double(p.spaceAfter) / 20,
            headingLevel: (p.outlineLevel ?? style?.outlineLevel).map { $0 + 1 },
            isInTextBox: !interruptedRuns.isEmpty
        )
        let listID = p.listID != 0 ? p.listID : style?.listID ?? 0
        let level = p.hasListLevel || p.listID != 0 ? p.listLevel : style?.listLevel ?? 0
        if listID != 0, let numbered = numberListItem(listID: listID, level: level) {
            // The list table decides, as in LibreOffice (\listtext is only the producer's rendering of it).
            if !numbered.marker.isEmpty {
                attributes.list = ListMembership(id: listID, level: level, kind: numbered.kind, marker: numbered.marker)
            }
        } else if !listTextSeen, let numbering = paragraphNumbering {
            let marker = numberParagraph(numbering)
            attributes.list = ListMembership(
                id: -1 - (numberingLists.firstIndex { $0.numbering == numbering } ?? 0), level: 0,
                kind: numbering.bullet ? .bullet : ListKind(wordNumberFormat: numbering.numberFormat), marker: marker)
        } else {
            var marker = String(listMarker)
            marker = String(marker.unicodeScalars.filter { $0 != "\t" && $0 != " " && $0 != "\u{00A0}" })
            // LibreOffice attaches headings to outline numbering with an empty \listtext: not a visible list.
            if !marker.isEmpty || (p.listID != 0 && !listTextSeen) {
                attributes.list = ListMembership(
                    id: p.listID, level: p.listLevel, kind: ListKind(marker: marker), marker: marker)
            }
        }
        if p.inTable {
            if !tableOpen {
                tableOpen = true
                tableCount += 1
                cellFirstParagraph = paragraphs.count
                verticalMergeStarts = [:]
                horizontalMergeStart = nil
                tableCells = []
            }
            attributes.tableCell = TableCell(table: tableCount, row: tableRow, column: tableColumn, isHeader: rowIsHeader)
            cellHasParagraph = true
        } else if tableOpen {
            spanGridColumns()
            tableOpen = false
            tableRow = 0
            tableColumn = 0
        }
        return attributes
    }

    // MARK: - Pictures, attachments, fields

    mutating func finishPicture() {
        var kind = picture.kind
        let data = picture.data
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47]) { kind = .png }
        if data.starts(with: [0xFF, 0xD8, 0xFF]) { kind = .jpeg }
        if data.starts(with: Array("GIF8".utf8)) { kind = .gif }  // Word has been seen to write GIF bytes as \pngblip
        let mime: String
        switch kind {
        case .png: mime = "image/png"
        case .jpeg: mime = "image/jpeg"
        case .gif: mime = "image/gif"
        default:
            warn("dropped a picture in a format other than PNG or JPEG")
            return
        }
        guard !data.isEmpty else {
            warn("dropped an empty picture")
            return
        }
        pictureCount += 1
        let widthTwips = picture.widthGoal > 0 ? picture.widthGoal : 0
        let heightTwips = picture.heightGoal > 0 ? picture.heightGoal : 0
        let width = widthTwips > 0 ? Double(widthTwips) / 20 * Double(max(picture.scaleX, 1)) / 100 : nil
        let height = heightTwips > 0 ? Double(heightTwips) / 20 * Double(max(picture.scaleY, 1)) / 100 : nil
        let name = "image\(pictureCount).\(Attachment.fileExtension(forMIMEType: mime))"
        insertAttachment(Attachment(fileName: name, mimeType: mime, bytes: data, width: width, height: height))
    }

    mutating func finishNextGraphic() {
        var name = String(nextGraphicName)
        while name.last == " " { name.removeLast() }
        while name.first == " " { name.removeFirst() }
        guard !name.isEmpty else {
            warn("\\NeXTGraphic without a file name")
            return
        }
        insertAttachment(
            Attachment(
                fileName: name, mimeType: Attachment.mimeType(forFileName: name), bytes: [],
                width: nextGraphicWidth > 0 ? Double(nextGraphicWidth) / 20 : nil,
                height: nextGraphicHeight > 0 ? Double(nextGraphicHeight) / 20 : nil))
        dropPlaceholder = true
    }

    /// Parses `HYPERLINK "url" \l "anchor" \o "tip"`; nil for other fields.
    static func hyperlink(_ instruction: String) -> Link? {
        var tokens: [(text: String, quoted: Bool)] = []
        var scalars = Array(instruction.unicodeScalars)[...]
        while let first = scalars.first {
            if first == " " || first == "\t" || first == "\u{2028}" {
                scalars = scalars.dropFirst()
                continue
            }
            var token = String.UnicodeScalarView()
            if first == "\"" {
                scalars = scalars.dropFirst()
                while let c = scalars.first {
                    scalars = scalars.dropFirst()
                    if c == "\\", let next = scalars.first, next == "\\" || next == "\"" {
                        token.append(next)
                        scalars = scalars.dropFirst()
                    } else if c == "\"" {
                        break
                    } else {
                        token.append(c)
                    }
                }
                tokens.append((String(token), true))
            } else {
                while let c = scalars.first, c != " ", c != "\t" {
                    token.append(c)
                    scalars = scalars.dropFirst()
                }
                tokens.append((String(token), false))
            }
        }
        guard let head = tokens.first, head.text.uppercased() == "HYPERLINK" else { return nil }
        var url: String?
        var anchor: String?
        var title: String?
        var index = 1
        while index < tokens.count {
            let token = tokens[index]
            if !token.quoted && token.text.hasPrefix("\\") {
                let option = token.text.dropFirst().lowercased()
                let argument = index + 1 < tokens.count ? tokens[index + 1].text : nil
                switch option {
                case "l": anchor = argument; index += 1
                case "o": title = argument; index += 1
                case "t", "m": index += option == "t" ? 1 : 0
                default: break
                }
            } else if url == nil {
                url = token.text
            }
            index += 1
        }
        var target = url ?? ""
        if let anchor, !anchor.isEmpty { target += "#" + anchor }
        guard !target.isEmpty else { return nil }
        return Link(url: target, title: title)
    }

    // MARK: - Result

    mutating func finish() -> ReadResult {
        flushPendingLead()
        if pendingHighSurrogate != nil {
            pendingHighSurrogate = nil
            emit("\u{FFFD}")
        }
        flushRun()
        if tableOpen && paragraphRuns.isEmpty { spanGridColumns() }
        var document = AttributedDocument(paragraphs: paragraphs, endsWithParagraphBreak: true)
        if !paragraphRuns.isEmpty {
            if let finalParagraph { cur.para = finalParagraph }
            document.paragraphs.append(Paragraph(runs: paragraphRuns, attributes: paragraphAttributes()))
            document.endsWithParagraphBreak = false
        }
        return ReadResult(document: document, warnings: warnings, declaredFonts: fontOrder)
    }
}

// MARK: - Styles, list numbers, shapes, merged cells, fields

extension RTFParser {
    static let maximumCellsPerRow = 1000

    /// Records the style entry whose name just ended (`;`) or whose group closed.
    mutating func finishStyleEntry() {
        var name = String(styleName)
        while name.last == " " { name.removeLast() }
        while name.first == " " { name.removeFirst() }
        defer {
            styleName = String.UnicodeScalarView()
            styleIndex = 0
        }
        guard !name.isEmpty || styleIndex != 0, styles.count < 10_000 else { return }
        let level = cur.para.outlineLevel ?? RTFParser.headingLevel(styleName: name).map { $0 - 1 }
        styles[styleIndex] = StyleEntry(
            name: name, outlineLevel: level, listID: cur.para.listID, listLevel: cur.para.listLevel)
    }

    /// `heading 1` … `heading 6` (Word's and LibreOffice's names, any case) → 1…6.
    static func headingLevel(styleName: String) -> Int? {
        let lower = styleName.lowercased()
        guard lower.hasPrefix("heading "), let n = Int(lower.dropFirst(8)), (1...6).contains(n) else { return nil }
        return n
    }

    /// The marker of the next paragraph numbered by `numbering` (bullets map through their `\pnf` font).
    mutating func numberParagraph(_ numbering: ParagraphNumbering) -> String {
        let symbolFont = numbering.font.flatMap { fonts[$0]?.codePage }.flatMap(SymbolFont.forCodePage)
        func mapped(_ text: String.UnicodeScalarView) -> String {
            guard let symbolFont else { return String(text) }
            return String(String.UnicodeScalarView(text.map(symbolFont.remap)))
        }
        if numbering.bullet { return mapped(numbering.before) + mapped(numbering.after) }
        let index: Int
        if let found = numberingLists.firstIndex(where: { $0.numbering == numbering }) {
            index = found
        } else if numberingLists.count < 1000 {
            numberingLists.append((numbering, numbering.start - 1))
            index = numberingLists.count - 1
        } else {
            return ""
        }
        numberingLists[index].count &+= 1
        let number = RTFParser.formatNumber(numberingLists[index].count, format: numbering.numberFormat)
        return mapped(numbering.before) + number + mapped(numbering.after)
    }

    /// A list level's `\leveltext`: its first character is the template's length.
    mutating func finishListLevel() {
        if let length = levelTextScalars.first.map({ Int($0.value) }) {
            var template = Array(levelTextScalars.dropFirst().prefix(length))
            if let font = listLevel.font, let symbolFont = fonts[font].flatMap({ SymbolFont.forCodePage($0.codePage ?? 0) }) {
                // The template was decoded before the level named its font (`\f` follows `\leveltext`).
                template = template.map(symbolFont.remap)
            } else {
                // A private-use bullet without a known font is Word's default bullet font, Symbol (U+F0B7 → •).
                template = template.map { SymbolFont.symbol.mapPrivateUse($0) }
            }
            listLevel.template = template
        }
        if let level = lfoLevel {
            if level < 9 { listOverride.formats[level] = listLevel }
        } else if listLevels.count < 9 {
            listLevels.append(listLevel)
        }
        levelTextScalars = []
    }

    /// Advances the counters of list override `listID` for an item at `level` and renders its number.
    mutating func numberListItem(listID: Int, level: Int) -> (marker: String, kind: ListKind)? {
        guard let override = overrides[listID], var levels = lists[override.listID] else { return nil }
        for (k, format) in override.formats where k < 9 {
            while levels.count <= k { levels.append(ListLevelDefinition()) }
            levels[k] = format
        }
        guard level < levels.count else { return nil }
        var counters = listCounters[listID] ?? [Int?](repeating: nil, count: 9)
        func start(_ k: Int) -> Int { override.startAt[k] ?? levels[k].startAt }
        counters[level] = (counters[level] ?? start(level) - 1) &+ 1
        for deeper in (level + 1)..<9 where deeper >= levels.count || !levels[deeper].noRestart { counters[deeper] = nil }
        listCounters[listID] = counters
        let definition = levels[level]
        var marker = String.UnicodeScalarView()
        for scalar in definition.template {
            let k = Int(scalar.value)
            if k < 9 {
                if k < levels.count {
                    let format = definition.legal ? 0 : levels[k].numberFormat
                    marker.append(contentsOf: RTFParser.formatNumber(counters[k] ?? start(k), format: format).unicodeScalars)
                }
            } else if scalar != "\t" {
                marker.append(scalar)
            }
        }
        var text = String(marker)
        while text.last == " " || text.last == "\u{00A0}" { text.removeLast() }
        while text.first == " " || text.first == "\u{00A0}" { text.removeFirst() }
        return (text, ListKind(wordNumberFormat: definition.numberFormat))
    }

    /// A number in Word's `\levelnfc` format (unknown formats as decimal).
    static func formatNumber(_ n: Int, format: Int) -> String {
        switch format {
        case 1: return ListKind.roman(n).uppercased()
        case 2: return ListKind.roman(n)
        case 3: return ListKind.alpha(n).uppercased()
        case 4: return ListKind.alpha(n)
        case 22: return n < 10 && n >= 0 ? "0\(n)" : String(n)
        case 23, 255: return ""
        default: return String(n)
        }
    }

    /// A paragraph mark inside `\listtext`: the producer (AbiWord) wrote the item's text there, not a marker. The
    /// text so far becomes the paragraph's and the rest of the group is body text.
    mutating func bodyInListText() {
        let text = listMarker.drop { $0 == "\t" || $0 == " " }
        listMarker = String.UnicodeScalarView()
        listTextSeen = false
        cur.destination = .text
        for scalar in text { put(scalar) }
        paragraphBreak()
    }

    /// Shape or text-box text: paragraphs of their own, between the body text before and after the shape.
    mutating func beginShapeText() {
        flushRun()
        if interruptedRuns.count < 64 {
            interruptedRuns.append(paragraphRuns)
            paragraphRuns = []
        } else {
            shapeTextOverflow += 1
        }
        cur.destination = .text
        cur.role = .shapeText
        cur.para = RTFParagraphState()
        charVersion &+= 1
    }

    /// Ends the shape text's last paragraph and resumes the interrupted body paragraph.
    mutating func endShapeText() {
        if shapeTextOverflow > 0 {
            shapeTextOverflow -= 1
            return
        }
        flushRun()
        if !paragraphRuns.isEmpty { paragraphBreak() }
        if let runs = interruptedRuns.popLast() { paragraphRuns = runs }
    }

    /// Applies the row definition's merge flags to the cell that just ended (its paragraphs are the last ones).
    mutating func mergeCell(_ column: Int) {
        guard column < cellDefinitions.count, cellFirstParagraph <= paragraphs.count else { return }
        let definition = cellDefinitions[column]
        let range = cellFirstParagraph..<paragraphs.count
        let left = column > 0 ? cellDefinitions[column - 1].right : Int.min
        let remains: Bool
        defer {
            if remains && !range.isEmpty && tableCells.count < 100_000 {
                tableCells.append((range, left, definition.right))
            }
        }
        let isEmpty = paragraphs[range].allSatisfy { $0.runs.allSatisfy(\.text.isEmpty) }
        switch definition.merge {
        case .horizontalStart:
            remains = true
            horizontalMergeStart = Array(range)
            verticalMergeStarts[definition.right] = nil
        case .horizontalContinue:
            guard let start = horizontalMergeStart, let first = start.first, let startCell = paragraphs[first].attributes.tableCell else {
                remains = true
                verticalMergeStarts[definition.right] = nil
                return
            }
            remains = false
            if isEmpty {
                paragraphs.removeSubrange(range)
            } else {  // the covered cell's text joins the merged cell, as in LibreOffice
                for index in range { paragraphs[index].attributes.tableCell = startCell }
                horizontalMergeStart = start + Array(range)
            }
            for index in horizontalMergeStart ?? start { paragraphs[index].attributes.tableCell?.columnSpan += 1 }
        case .verticalStart:
            remains = true
            verticalMergeStarts[definition.right] = Array(range)
            horizontalMergeStart = nil
        case .verticalContinue:
            guard let start = verticalMergeStarts[definition.right], isEmpty else {
                remains = true
                verticalMergeStarts[definition.right] = nil
                return
            }
            remains = false
            paragraphs.removeSubrange(range)
            for index in start { paragraphs[index].attributes.tableCell?.rowSpan += 1 }
            horizontalMergeStart = nil
        case .none:
            remains = true
            verticalMergeStarts[definition.right] = nil
            horizontalMergeStart = nil
        }
    }

    /// A cell whose edges enclose several columns of the table's grid (the union of all rows' `\cellx` edges)
    /// spans them: Word and LibreOffice write a horizontally merged cell as one wide cell.
    mutating func spanGridColumns() {
        defer { tableCells = [] }
        guard tableCells.count > 1 else { return }
        let edges = Set(tableCells.map(\.right)).sorted()
        guard edges.count > 1 else { return }
        /// How many edges are ≤ `value` (binary search: a hostile table has many edges).
        func edgesUpTo(_ value: Int) -> Int {
            var low = 0, high = edges.count
            while low < high {
                let mid = (low + high) / 2
                if edges[mid] <= value { low = mid + 1 } else { high = mid }
            }
            return low
        }
        for cell in tableCells {
            let covered = edgesUpTo(cell.right) - edgesUpTo(cell.left)
            guard covered > 1 else { continue }
            for index in cell.paragraphs where index < paragraphs.count {
                paragraphs[index].attributes.tableCell?.columnSpan += covered - 1
            }
        }
    }

    /// Ends a field; a `SYMBOL` field inserts its character, as LibreOffice does (its result is ignored).
    mutating func finishField() {
        guard let field = fields.popLast() else { return }
        if let symbol = RTFParser.symbolField(field.instruction) { put(symbol) }
    }

    /// `SYMBOL 183 \f "Symbol" \s 10` → the character, mapped through a known symbol font.
    static func symbolField(_ instruction: String) -> Unicode.Scalar? {
        // Every field's instruction comes here: look at its first word's bytes before splitting anything.
        let head = instruction.utf8.drop { $0 == 0x20 || $0 == 0x09 }
        guard head.count > 6, zip(head, "symbol".utf8).allSatisfy({ $0 | 0x20 == $1 }) else { return nil }
        let words = instruction.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard words.count >= 2, words[0].uppercased() == "SYMBOL" else { return nil }
        let number = words[1].hasPrefix("0x") ? Int(words[1].dropFirst(2), radix: 16) : Int(words[1])
        guard let code = number, code > 0, code <= 0xFFFF, let scalar = Unicode.Scalar(UInt32(code)) else { return nil }
        var font: SymbolFont?
        if let index = words.firstIndex(where: { $0.lowercased() == "\\f" }), index + 1 < words.count {
            let name = instruction[words[index + 1].startIndex...].drop { $0 == "\"" }.prefix { $0 != "\"" }
            font = SymbolFont.forFont(name: String(name), charset: nil)
        }
        guard let font else { return scalar }
        return code <= 0xFF ? font.decode(UInt8(code)) : font.mapPrivateUse(scalar)
    }
}

extension String {
    func trimmingSuffix(while predicate: (Character) -> Bool) -> Substring {
        var s = self[...]
        while let last = s.last, predicate(last) { s = s.dropLast() }
        return s
    }
}
