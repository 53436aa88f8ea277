// SPDX-License-Identifier: Apache-2.0
// Copies a password the way a password manager should: sensitive (never in history, never on disk),
// local-only (never over SSH or to a peered daemon) and gone after SECONDS (default 45) unless something
// else was copied meanwhile — pasteboardd clears it, so no process of ours has to stay alive for that, but this
// one does, to say who reads it: one line per read, until the pasteboard changes.
//
//   printf '%s\n' "$password" | CopyPassword [SECONDS]
//
// The password is read from standard input, never from the command line (where ps would show it).
import Glibc
import Pasteboard

/// The next read `reads` reports within `milliseconds`, nil if none.
func nextRead(_ reads: PasteboardReadWatcher, within milliseconds: Int) throws(PasteboardError) -> PasteboardRead? {
    do { return try reads.next(timeoutMilliseconds: milliseconds) } catch .timedOut { return nil }
}

/// The change `changes` has already received, if any (it does not wait).
func nextChange(_ changes: PasteboardWatcher) throws(PasteboardError) -> PasteboardChange? {
    do { return try changes.next(timeoutMilliseconds: 0) } catch .timedOut { return nil }
}

/// Copies `password` to expire after `expiry` and prints each read of it until the pasteboard changes;
/// returns that change (nil if none came within the expiry and 5 s more).
func copyAndWatch(_ password: String, expiry: Duration) throws -> PasteboardChange? {
    let board = Pasteboard.general
    // Both watches start before the copy, so no read and no change after it is missed.
    let changes = try PasteboardWatcher(pasteboards: [board.name])
    let reads = try PasteboardReadWatcher(pasteboards: [board.name])
    let count = try board.setItems([try PasteboardItem([(.utf8PlainText, Array(password.utf8))])],
                                   options: PasteboardOptions(expiresAfter: expiry, localOnly: true, sensitive: true))
    print("copied: changeCount \(count), cleared in \(expiry) unless something else is copied first")
    let clock = ContinuousClock()
    let deadline = clock.now + expiry + .seconds(5)
    while clock.now < deadline {
        if let read = try nextRead(reads, within: 100) {
            let reader = read.reader?.description ?? "a reader pasteboardd could not name"
            print(read.refusal.map { "refused \(reader) (\($0))" } ?? "read as \(read.type.rawValue) by \(reader)")
        }
        // Changes that came meanwhile, taken without waiting: the first after our copy ends the watch.
        while let change = try nextChange(changes) {
            if change.changeCount > count { return change }
        }
    }
    return nil
}

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count <= 1, let seconds = arguments.first.map({ Double($0) }) ?? 45, seconds > 0 else {
    print("usage: CopyPassword [SECONDS] <password"); exit(2)
}
guard let password = readLine(strippingNewline: true), !password.isEmpty else {
    print("CopyPassword: no password on standard input"); exit(2)
}
guard let change = try copyAndWatch(password, expiry: .milliseconds(Int64(seconds * 1000))) else {
    print("the pasteboard did not change within \(seconds + 5) s"); exit(1)
}
if change.state == "clear" {
    print("cleared at expiry: changeCount \(change.changeCount)")
} else {
    print("replaced before expiry by \(change.source?.description ?? "another copy"): changeCount \(change.changeCount)")
}
