// SPDX-License-Identifier: Apache-2.0
// Writes plain text, HTML and RTF as one item (one change), reads the HTML back, then waits for the
// next change and says who made it. Build it as an executable target depending on the `Pasteboard` product, with
// pasteboardd running on $DISPLAY.
import Pasteboard

let board = Pasteboard.general
let count = try board.setItems([
    try PasteboardItem([
        (.utf8PlainText, Array("Hello, pasteboard".utf8)),
        (.html, Array("<p>Hello, <b>pasteboard</b></p>".utf8)),
        (.rtf, Array(#"{\rtf1\ansi Hello, {\b pasteboard}\par}"#.utf8)),
    ]),
])
print("changeCount is now \(count)")
print("types on offer:", try board.types.map(\.rawValue))
if let html = try board.data(forType: .html) { print(String(decoding: html, as: UTF8.self)) }
let change = try board.waitForChange(timeoutMilliseconds: 60_000)
print("changed to \(change.changeCount): \(change.state)")
// Who copied it, and what its text is, without reading it (nil from an older pasteboardd).
print("copied by \(change.source?.application ?? "an unknown application"), patterns: \(change.patterns?.names ?? [])")
