// SPDX-License-Identifier: Apache-2.0
// The typed accessors, as UIPasteboard and NSPasteboard code uses them: first on a pasteboard of its own (a
// unique name, removed when done), then on the general pasteboard — what the next application to copy
// offers, asked for without reading more than each question needs (`has…` and `availableType` read the list
// of types only), and its picture, if it has one, as PNG whatever type it was copied as.
import Pasteboard

let scratch = try Pasteboard.withUniqueName()
try scratch.setStrings(["first", "second"])
print("strings on \(scratch.name.rawValue): \(try scratch.strings)")
try scratch.setURL("https://example.org/pasteboard")
print("url: \(try scratch.url ?? "none"), hasURLs: \(try scratch.hasURLs), hasImages: \(try scratch.hasImages)")
print("richest of HTML, RTF and text: \(try scratch.availableType(from: [.html, .rtf, .utf8PlainText])?.rawValue ?? "none")")
try scratch.remove()
print("removed \(scratch.name.rawValue)")

let general = Pasteboard.general
let watcher = try PasteboardWatcher(pasteboards: [general.name])
var change = try watcher.next(timeoutMilliseconds: 120_000)
if change.state == "foreign" {
    // Another application's copy is told at once, before pasteboardd has read it; what its text is comes with
    // the `kept` change (the same count) once pasteboardd has read it.
    let kept = try watcher.next(timeoutMilliseconds: 10_000)
    if kept.changeCount == change.changeCount { change = kept }
}
print("copied by \(change.source?.description ?? "an application pasteboardd could not name")"
      + ", patterns: \(change.patterns?.names ?? [])")
print("hasStrings: \(try general.hasStrings), hasURLs: \(try general.hasURLs), hasImages: \(try general.hasImages)")
if let url = try general.url { print("url: \(url)") }
if let png = try general.image(as: .png) {
    let isPNG = png.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    print("picture: \(png.count) bytes\(isPNG ? " of PNG" : ", not PNG")")
}
