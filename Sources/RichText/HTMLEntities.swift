// SPDX-License-Identifier: Apache-2.0
/// Named character references commonly found in clipboard HTML (the Latin-1 set plus typographic ones).
enum HTMLEntities {
    static let table: [String: Unicode.Scalar] = {
        var t: [String: Unicode.Scalar] = [
            "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'",
            "OElig": "\u{152}", "oelig": "\u{153}", "Scaron": "\u{160}", "scaron": "\u{161}", "Yuml": "\u{178}",
            "fnof": "\u{192}", "circ": "\u{2C6}", "tilde": "\u{2DC}", "ensp": "\u{2002}", "emsp": "\u{2003}",
            "thinsp": "\u{2009}", "zwnj": "\u{200C}", "zwj": "\u{200D}", "lrm": "\u{200E}", "rlm": "\u{200F}",
            "ndash": "\u{2013}", "mdash": "\u{2014}", "lsquo": "\u{2018}", "rsquo": "\u{2019}", "sbquo": "\u{201A}",
            "ldquo": "\u{201C}", "rdquo": "\u{201D}", "bdquo": "\u{201E}", "dagger": "\u{2020}", "Dagger": "\u{2021}",
            "bull": "\u{2022}", "hellip": "\u{2026}", "permil": "\u{2030}", "prime": "\u{2032}", "Prime": "\u{2033}",
            "lsaquo": "\u{2039}", "rsaquo": "\u{203A}", "euro": "\u{20AC}", "trade": "\u{2122}", "larr": "\u{2190}",
            "uarr": "\u{2191}", "rarr": "\u{2192}", "darr": "\u{2193}", "harr": "\u{2194}", "minus": "\u{2212}",
            "infin": "\u{221E}", "ne": "\u{2260}", "le": "\u{2264}", "ge": "\u{2265}", "asymp": "\u{2248}",
            "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "pi": "π", "mu": "μ", "sigma": "σ", "omega": "ω",
            "Alpha": "Α", "Beta": "Β", "Gamma": "Γ", "Delta": "Δ", "Pi": "Π", "Sigma": "Σ", "Omega": "Ω",
            "hearts": "♥", "check": "✓", "nbsp": "\u{A0}",
        ]
        let latin1 = """
            nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 \
            acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde \
            Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc \
            Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml \
            aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc \
            otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml
            """.split(separator: " ")
        for (index, name) in latin1.enumerated() { t[String(name)] = Unicode.Scalar(UInt8(0xA0 + index)) }
        return t
    }()

    /// The character of a numeric reference, with HTML's remapping of C1 bytes to cp1252 and U+FFFD for invalid.
    static func numeric(_ value: UInt32) -> Unicode.Scalar {
        if value >= 0x80 && value <= 0x9F, let mapped = Windows1252.high[Int(value - 0x80)] { return mapped }
        if value == 0 || (0xD800...0xDFFF).contains(value) || value > 0x10FFFF { return "\u{FFFD}" }
        return Unicode.Scalar(value) ?? "\u{FFFD}"
    }
}
