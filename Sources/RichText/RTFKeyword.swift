// SPDX-License-Identifier: Apache-2.0
/// The RTF control words the reader acts on. Raw values are the words as written (case-sensitive).
enum RTFKeyword: String, CaseIterable {
    // Document and encoding
    case rtf, ansi, mac, pc, pca, ansicpg, deff, uc, u, bin, upr, ud
    // Destinations
    case fonttbl, colortbl, stylesheet, info, field, fldinst, fldrslt, pict, shppict, nonshppict
    case nextGraphic = "NeXTGraphic"
    case listtext, pntext, object, result
    // Lists, styles, shapes, drawing objects, footnotes
    case list, listlevel, levelnfc, levelnfcn, levelstartat, leveltext, levelnumbers, levelfollow, levellegal
    case levelnorestart, listid, listname, listpicture, listoverride, lfolevel, listoverridestartat, s
    case shp, shpgrp, shpinst, shptxt, shprslt, sp, sn, sv
    case `do`, dptxbxtext, chftn, ftnalt
    case pn, pnlvlbody, pnlvlblt, pnlvlcont, pndec, pnucltr, pnlcltr, pnucrm, pnlcrm, pnstart, pntxta, pntxtb, pnf
    case header, headerl, headerr, headerf, footer, footerl, footerr, footerf, footnote, annotation
    case themedata, colorschememapping, datastore, latentstyles, rsidtbl, pgdsctbl, listtable, listoverridetable
    case revtbl, xmlnstbl, generator, keywords, comment, title, author
    // Font table
    case f, fcharset, cpg, fnil, froman, fswiss, fmodern, fscript, fdecor, ftech, fbidi
    // Colour table
    case red, green, blue
    // Character formatting
    case ab, ai, afs, af, loch, hich, dbch, rtlch, ltrch
    case plain, b, i, ul, ulnone, uldb, ulw, uld, uldash, uldashd, uldashdd, ulwave, ulhwave, ululdbwave
    case ulth, ulthd, ulthdash, ulthdashd, ulthdashdd, ulthldash, ulldash, ulthwave
    case strike, striked, fs, cf, cb, highlight, chcbpat
    case superscript = "super"
    case `subscript` = "sub"
    case nosupersub, up, dn, v
    // Paragraph formatting
    case par, pard, sect, ql, qc, qr, qj, li, ri, fi, lin, rin, sb, sa, outlinelevel
    case intbl, cell, row, trowd, trhdr, nestcell, nestrow, ls, ilvl
    case cellx, clmgf, clmrg, clvmgf, clvmrg
    // Special characters
    case line, page, tab, emdash, endash, bullet, lquote, rquote, ldblquote, rdblquote
    case emspace, enspace, qmspace, zwj, zwnj, ltrmark, rtlmark
    // Pictures and attachments
    case pngblip, jpegblip, emfblip, wmetafile, macpict, dibitmap, wbitmap
    case picw, pich, picwgoal, pichgoal, picscalex, picscaley, width, height

    /// Destinations skipped whole, starred or not.
    var isSkippedDestination: Bool {
        switch self {
        case .info, .nonshppict, .header, .headerl, .headerr, .headerf, .footer, .footerl, .footerr,
            .footerf, .footnote, .annotation, .themedata, .colorschememapping, .datastore, .latentstyles, .rsidtbl,
            .pgdsctbl, .revtbl, .xmlnstbl, .generator, .keywords, .comment, .title, .author, .listname,
            .listpicture, .shprslt, .levelnumbers:
            return true
        default:
            return false
        }
    }

    /// Destinations understood after `\*` (any other starred destination is skipped whole).
    var isUnderstoodAfterStar: Bool {
        switch self {
        case .fldinst, .shppict, .ud, .pntext, .listtext, .result, .pict, .fldrslt, .nextGraphic, .listtable,
            .listoverridetable, .shpinst, .shptxt, .do, .dptxbxtext, .footnote, .leveltext, .pn, .pntxta, .pntxtb:
            return true
        default: return false
        }
    }
}

extension ListKind {
    /// The kind of a Word `\levelnfc` number format (the reader gives `\pndec` … the same numbers): 0 decimal,
    /// 1/2 upper/lower roman, 3/4 upper/lower letter, 23 bullet, 255 none (read as a bullet); others decimal.
    init(wordNumberFormat: Int) {
        switch wordNumberFormat {
        case 1: self = .upperRoman
        case 2: self = .lowerRoman
        case 3: self = .upperAlpha
        case 4: self = .lowerAlpha
        case 23, 255: self = .bullet
        default: self = .decimal
        }
    }

    /// Word's `\levelnfc` for this kind (the inverse of `init(wordNumberFormat:)`).
    var wordNumberFormat: Int {
        switch self {
        case .decimal: return 0
        case .upperRoman: return 1
        case .lowerRoman: return 2
        case .upperAlpha: return 3
        case .lowerAlpha: return 4
        case .bullet: return 23
        }
    }
}

/// Finds keywords by their letters without building a String for the common (≤ 10 letter) case.
struct RTFKeywordTable: Sendable {
    /// Built once per process.
    static let shared = RTFKeywordTable()

    private var short: [UInt64: RTFKeyword] = [:]
    private var long: [String: RTFKeyword] = [:]

    init() {
        for keyword in RTFKeyword.allCases {
            let letters = Array(keyword.rawValue.utf8)
            if letters.count <= 10 {
                short[RTFKeywordTable.pack(letters[...])] = keyword
            } else {
                long[keyword.rawValue] = keyword
            }
        }
    }

    /// Packs up to 10 ASCII letters into 60 bits, 6 bits per letter (a–z = 1–26, A–Z = 27–52).
    @inline(__always)
    static func pack<C: Collection>(_ letters: C) -> UInt64 where C.Element == UInt8 {
        var key: UInt64 = 0
        for letter in letters {
            let code: UInt64 = letter >= 0x61 ? UInt64(letter - 0x60) : UInt64(letter - 0x41 + 27)
            key = key << 6 | code
        }
        return key
    }

    @inline(__always)
    func lookup(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> RTFKeyword? {
        let count = end - start
        if count <= 10 { return short[RTFKeywordTable.pack(input[start..<end])] }
        return long[String(decoding: input[start..<end], as: UTF8.self)]
    }
}
