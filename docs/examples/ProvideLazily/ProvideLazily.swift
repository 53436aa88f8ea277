// SPDX-License-Identifier: Apache-2.0
// Puts an item on the general pasteboard whose bytes are made only when a reader asks for them (a lazy
// provider, as NSPasteboard's data providers): plain text and HTML naming this process, made on this
// program's behalf by the library's own thread, while the main thread only waits. It prints each type it
// is asked for, and exits once the pasteboard changes again (its providers are done then).
import Glibc
import Pasteboard

let me = "process \(getpid())"
let count = try Pasteboard.general.setItemProviders([
    PasteboardItemProvider(types: [.utf8PlainText, .html]) { type in
        print("asked for \(type.rawValue)")
        return type == .html ? Array("<p>made by <b>\(me)</b></p>".utf8) : Array("made by \(me)".utf8)
    },
])
print("changeCount is now \(count)")
let change = try Pasteboard.general.waitForChange(timeoutMilliseconds: 120_000)
print("changed to \(change.changeCount): \(change.state)")
