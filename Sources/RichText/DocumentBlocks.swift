// SPDX-License-Identifier: Apache-2.0
/// A document seen as writers need it: paragraphs, and tables made of consecutive cell paragraphs.
enum DocumentBlock {
    case paragraph(Paragraph, isLast: Bool)
    case table(TableBlock, isLast: Bool)
}

/// Rows of cells; each cell holds one or more paragraphs.
struct TableBlock {
    var rows: [[[Paragraph]]]
    /// Whether every cell of the row is a header cell.
    var headerRows: [Bool]
}

extension AttributedDocument {
    /// Groups consecutive paragraphs of the same table into table blocks, keeping order.
    var blocks: [DocumentBlock] {
        var result: [DocumentBlock] = []
        var index = 0
        let count = paragraphs.count
        while index < count {
            let paragraph = paragraphs[index]
            guard let cell = paragraph.attributes.tableCell else {
                result.append(.paragraph(paragraph, isLast: index == count - 1))
                index += 1
                continue
            }
            var rows: [[[Paragraph]]] = []
            var rowKeys: [Int] = []
            var headers: [Bool] = []
            var columnKeys: [[Int]] = []
            while index < count, let c = paragraphs[index].attributes.tableCell, c.table == cell.table {
                if rowKeys.last != c.row {
                    rowKeys.append(c.row)
                    rows.append([])
                    columnKeys.append([])
                    headers.append(true)
                }
                let r = rows.count - 1
                if columnKeys[r].last != c.column {
                    columnKeys[r].append(c.column)
                    rows[r].append([])
                }
                rows[r][rows[r].count - 1].append(paragraphs[index])
                if !c.isHeader { headers[r] = false }
                index += 1
            }
            result.append(.table(TableBlock(rows: rows, headerRows: headers), isLast: index == count))
        }
        return result
    }
}

extension Double {
    /// Lengths writers emit are clamped to ±10⁹ (NaN and infinities to 0), so a hostile length cannot trap.
    var clampedForOutput: Double { isFinite ? Swift.max(-1e9, Swift.min(1e9, self)) : 0 }

    /// Rounded to an integer within ±10⁹ (RTF's numbers are 32-bit).
    var clampedInt: Int { Int(clampedForOutput.rounded()) }

    /// `12`, `12.5`, `0.25`: no trailing zeros, at most 2 decimals.
    var compact: String {
        let rounded = (clampedForOutput * 100).rounded() / 100
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        var s = String(rounded)
        while s.hasSuffix("0") { s.removeLast() }
        return s
    }
}
