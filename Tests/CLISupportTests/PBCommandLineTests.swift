// SPDX-License-Identifier: Apache-2.0
import CLISupport
import PasteboardCore
import XCTest

func parse(_ arguments: [String], _ program: String = "pb") throws -> Command {
    try CommandLineParser.parse(arguments, programName: program)
}

/// Asserts that `arguments` is a usage error whose message contains every one of `mentions`.
func assertUsageError(_ arguments: [String], _ program: String = "pb", mentions: [String] = [],
                      file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertThrowsError(try parse(arguments, program), "\(arguments)", file: file, line: line) { error in
        guard let usage = error as? UsageError else {
            return XCTFail("\(error) is not a UsageError", file: file, line: line)
        }
        for text in mentions {
            XCTAssertTrue(usage.message.contains(text), "'\(usage.message)' should mention '\(text)'", file: file, line: line)
        }
    }
}

/// The ssh command lines of `pb ssh` (`SSHMaster`, `SSHForward`) and its watcher's own invocation.
final class SSHCommandLineTests: XCTestCase {
    let session = "0123456789abcdef0123456789abcdef"
    var master: SSHMaster { SSHMaster(runtimeDirectory: "/run/user/1000/pasteboard", host: "me@box", session: session) }
    let forward = ["-o", "ExitOnForwardFailure=yes", "-o", "SendEnv=LC_PASTEBOARD_SESSION",
                   "-o", #"RemoteForward="/tmp/pasteboard-ssh-0123456789abcdef0123456789abcdef.sock" "/run/user/1000/pasteboard/remote.sock""#]

    func testTheMasterHasTheForwardAndTheSessionIsItsClientWithTheArgumentsAsGiven() {
        XCTAssertEqual(master.controlPath, "/run/user/1000/pasteboard/ssh-01234567")
        XCTAssertEqual(master.openArguments(options: ["-p", "2222", "-A"], localSocket: "/run/user/1000/pasteboard/remote.sock"),
                       ["ssh", "-f", "-N", "-M", "-S", "/run/user/1000/pasteboard/ssh-01234567", "-o", "ControlPersist=no"] + forward
                        + ["-p", "2222", "-A", "--", "me@box"])
        XCTAssertEqual(master.openArguments(options: [], localSocket: "/run/user/1000/pasteboard/remote.sock", extraOptions: ["-o", "X=y"]).suffix(4),
                       ["-o", "X=y", "--", "me@box"], "extra options after ours, before the user's")
        XCTAssertEqual(master.sessionArguments(passing: ["-p", "2222", "-A", "me@box", "ls", "-l"]),
                       ["ssh", "-S", "/run/user/1000/pasteboard/ssh-01234567", "-o", "ControlMaster=no", "-o", "SendEnv=LC_PASTEBOARD_SESSION",
                        "-p", "2222", "-A", "me@box", "ls", "-l"])
        XCTAssertEqual(SSHForward.argv(passing: ["-V"], session: session, localSocket: "/run/user/1000/pasteboard/remote.sock"),
                       ["ssh"] + forward + ["-V"], "without a host: ssh as given, after the forward's options")
    }

    func testTheCleanupGoesThroughTheMasterAndNeverConnectsByItself() {
        let client = ["ssh", "-F", "/dev/null", "-o", "ControlMaster=no", "-o", "ProxyCommand=false", "-S", "/run/user/1000/pasteboard/ssh-01234567"]
        XCTAssertEqual(master.removeSocketArguments,
                       client + ["--", "me@box", "rm -f -- /tmp/pasteboard-ssh-0123456789abcdef0123456789abcdef.sock"])
        XCTAssertEqual(master.exitArguments, client + ["-O", "exit", "--", "me@box"])
        XCTAssertEqual(master.controlArguments(["forward", "-L", "/a.sock:/b.sock"]), client + ["-O", "forward", "-L", "/a.sock:/b.sock", "--", "me@box"])
        XCTAssertEqual(master.remoteCommandArguments("echo hi"), client + ["--", "me@box", "echo hi"])
    }

    func testTheControlSocketMustFitASocketAddress() {
        XCTAssertTrue(master.controlPathFits)
        // ssh binds CONTROL.XXXXXXXXXXXXXXXX first: 77 + 13 (/ssh-01234567) + 17 bytes, 108 with the NUL.
        let long = "/" + String(repeating: "d", count: 76)
        XCTAssertTrue(SSHMaster(runtimeDirectory: long, host: "h", session: session).controlPathFits)
        XCTAssertFalse(SSHMaster(runtimeDirectory: long + "d", host: "h", session: session).controlPathFits)
    }

    func testTheWatchersInvocationParsesBackAndNothingElseDoes() throws {
        let arguments = master.cleanupArguments(parent: 4242)
        XCTAssertEqual(arguments, ["ssh-cleanup", "4242", "/run/user/1000/pasteboard/ssh-01234567", session, "me@box"])
        XCTAssertEqual(try parse(arguments), .sshCleanup(master, parent: 4242))
        XCTAssertEqual(try parse(SSHMaster(runtimeDirectory: "/r", host: "-odd", session: "a").cleanupArguments(parent: 1)),
                       .sshCleanup(SSHMaster(controlPath: "/r/ssh-a", host: "-odd", session: "a"), parent: 1))
        for wrong in [["ssh-cleanup"], ["ssh-cleanup", "0", "/c", session, "h"], ["ssh-cleanup", "x", "/c", session, "h"],
                      ["ssh-cleanup", "7", "relative", session, "h"], ["ssh-cleanup", "7", "/c", "not a session; rm -rf ~", "h"],
                      ["ssh-cleanup", "7", "/c", session, ""], ["ssh-cleanup", "7", "/c", session, "h", "more"]] {
            assertUsageError(wrong, mentions: ["pb ssh's own"])
        }
        XCTAssertFalse(Usage.text(for: nil).contains("ssh-cleanup"), "not in the usage")
    }
}

final class CopyCommandTests: XCTestCase {
    func copy(_ arguments: [String]) throws -> CopyRequest {
        guard case .copy(let request) = try parse(["copy"] + arguments) else {
            XCTFail("not a copy: \(arguments)")
            return CopyRequest()
        }
        return request
    }

    func testSSHPeerTakesEverythingAfterItAsSSHsAndFindsTheHost() throws {
        XCTAssertEqual(try parse(["ssh", "--peer", "-p", "22", "host", "ls", "-l"]), .sshPeer(["-p", "22", "host", "ls", "-l"]))
        XCTAssertEqual(try parse(["ssh", "host", "--peer"]), .ssh(["host", "--peer"]), "--peer is pb's only before ssh's arguments")
        assertUsageError(["ssh", "--peer"], mentions: ["host"])
        assertUsageError(["ssh", "--peer", "-p", "22"], mentions: ["host"])
        let split = try XCTUnwrap(SSHForward.split(["-F", "cfg", "-tA", "-p2222", "-o", "X=1", "user@host", "echo", "-p"]))
        XCTAssertEqual(split.options, ["-F", "cfg", "-tA", "-p2222", "-o", "X=1"])
        XCTAssertEqual(split.host, "user@host")
        XCTAssertEqual(split.command, ["echo", "-p"])
        XCTAssertEqual(SSHForward.split(["-v", "--", "-weird-host"])?.host, "-weird-host")
        XCTAssertEqual(SSHForward.split(["-Ai", "key", "h"])?.host, "h", "a grouped option that takes a value takes the next argument")
    }

    func testTheHostsAnswerSaysWhereItsPasteboarddListens() {
        XCTAssertEqual(try SSHForward.remoteSocket(fromQueryOutput: "motd\nsocket /run/user/1000/pasteboard/remote.sock\n").get(),
                       "/run/user/1000/pasteboard/remote.sock")
        guard case .failure(let none) = SSHForward.remoteSocket(fromQueryOutput: "none /run/user/7/pasteboard/remote.sock\n") else {
            return XCTFail("no socket, no peer")
        }
        XCTAssertTrue(none.message.contains("no pasteboardd listens on the host"), none.message)
        guard case .failure = SSHForward.remoteSocket(fromQueryOutput: "") else { return XCTFail("nothing said") }
    }

    func testPeerListAddRemove() throws {
        XCTAssertEqual(try parse(["peer"]), .peer(.list))
        XCTAssertEqual(try parse(["peer", "list"]), .peer(.list))
        XCTAssertEqual(try parse(["peers"]), .peer(.list))
        XCTAssertEqual(try parse(["peer", "add", "/tmp/b.sock"]), .peer(.add("/tmp/b.sock")))
        XCTAssertEqual(try parse(["peer", "remove", "b.sock"]), .peer(.remove("b.sock")))
        XCTAssertEqual(try parse(["peer", "--help"]), .help("peer"))
        assertUsageError(["peer", "add"], mentions: ["SOCKET"])
        assertUsageError(["peer", "add", "a", "b"], mentions: ["SOCKET"])
        assertUsageError(["peer", "list", "x"])
        assertUsageError(["peer", "join", "x"], mentions: ["list, add, remove"])
    }

    func testDisplaysListAddRemove() throws {
        XCTAssertEqual(try parse(["displays"]), .displays(.list))
        XCTAssertEqual(try parse(["displays", "add", ":3"]), .displays(.add(":3")))
        XCTAssertEqual(try parse(["displays", "remove", "host:0.0"]), .displays(.remove("host:0.0")))
        assertUsageError(["displays", "add", "nowhere"], mentions: ["not an X display name"])
        // The seat is listed by its socket's name: removing it says why it cannot be.
        assertUsageError(["displays", "remove", "wayland-1"], mentions: ["not an X display name", "--no-wayland"])
        assertUsageError(["displays", "remove", "/run/user/1000/wayland-1"], mentions: ["--no-wayland"])
    }

    func testPlainCopyReadsTextFromStandardInputOnClipboard() throws {
        let request = try copy([])
        XCTAssertEqual(request.pasteboard, .general)
        XCTAssertTrue(request.sources.isEmpty)
        XCTAssertNil(request.text)
        XCTAssertFalse(request.sensitive)
        XCTAssertFalse(request.trimNewline)
        XCTAssertFalse(request.detectRichText)
    }

    func testTypeWithFile() throws {
        let request = try copy(["-t", "html=page.html", "--type", "png=/tmp/a b.png"])
        XCTAssertEqual(request.sources.map(\.type), [.html, .png])
        XCTAssertEqual(request.sources.map(\.path), ["page.html", "/tmp/a b.png"])
    }

    func testFileNamesMayContainEquals() throws {
        let request = try copy(["-t", "html=report=v2.html", "-t", "text/plain;charset=utf-8=a=b.txt"])
        XCTAssertEqual(request.sources.map(\.type), [.html, .utf8PlainText])
        XCTAssertEqual(request.sources.map(\.path), ["report=v2.html", "a=b.txt"])
        XCTAssertThrowsError(try copy(["-t", "html="])) { error in
            XCTAssertTrue("\(error)".contains("names no file"), "\(error)")
        }
    }

    func testTypeWithoutFileReadsStandardInput() throws {
        let request = try copy(["-t", "rtf"])
        XCTAssertEqual(request.sources.map(\.type), [.rtf])
        XCTAssertEqual(request.sources.map(\.path), [nil])
    }

    func testMIMEParameterIsNotAFileSplit() throws {
        let bare = try copy(["-t", "text/plain;charset=utf-8"])
        XCTAssertEqual(bare.sources.map(\.type), [.utf8PlainText])
        XCTAssertEqual(bare.sources.map(\.path), [nil])

        let withFile = try copy(["-t", "text/plain;charset=utf-8=notes.txt"])
        XCTAssertEqual(withFile.sources.map(\.type), [.utf8PlainText])
        XCTAssertEqual(withFile.sources.map(\.path), ["notes.txt"])
    }

    func testInlineAndLongEqualsForms() throws {
        XCTAssertEqual(try copy(["-thtml=a.html"]).sources.map(\.path), ["a.html"])
        XCTAssertEqual(try copy(["--type=png=b.png"]).sources.map(\.type), [.png])
        XCTAssertEqual(try copy(["--type=png=b.png"]).sources.map(\.path), ["b.png"])
    }

    func testOneStandardInputTypePlusFiles() throws {
        let request = try copy(["-t", "html=a.html", "-t", "text", "-t", "rtf=a.rtf"])
        XCTAssertEqual(request.sources.map(\.type), [.html, .utf8PlainText, .rtf])
        XCTAssertEqual(request.sources.map(\.path), ["a.html", nil, "a.rtf"])
    }

    func testTwoStandardInputTypesRejected() {
        assertUsageError(["copy", "-t", "html", "-t", "png"], mentions: ["standard input"])
        assertUsageError(["copy", "-t", "html=-", "-t", "text"], mentions: ["standard input"])
    }

    func testDuplicateTypesRejectedEvenWhenSpelledDifferently() {
        assertUsageError(["copy", "-t", "html=a", "-t", "html=b"], mentions: ["text/html", "twice"])
        assertUsageError(["copy", "-t", "text=a", "-t", "public.utf8-plain-text=b"],
                         mentions: ["text/plain;charset=utf-8", "twice"])
    }

    func testInvalidTypeRejected() {
        assertUsageError(["copy", "-t", "=x"], mentions: ["invalid type"])
        assertUsageError(["copy", "-t", "a\u{1}b=x"], mentions: ["invalid type"])
        assertUsageError(["copy", "-t"], mentions: ["--type", "needs a value"])
    }

    func testTextOperandsAreJoinedWithSpaces() throws {
        let request = try copy(["hello", "big", "world"])
        XCTAssertEqual(request.text, "hello big world")
        XCTAssertTrue(request.sources.isEmpty)
    }

    func testTextOperandsWithAFileTypeAreAccepted() throws {
        let request = try copy(["-t", "html=a.html", "hi"])
        XCTAssertEqual(request.text, "hi")
        XCTAssertEqual(request.sources.map(\.path), ["a.html"])
    }

    func testTextOperandsAndAStandardInputTypeAmongFilesConflict() {
        assertUsageError(["copy", "-t", "html=a.html", "-t", "text", "hi"], mentions: ["text operands"])
    }

    func testPasteboardSelection() throws {
        XCTAssertEqual(try copy(["-p"]).pasteboard, .primary)
        XCTAssertEqual(try copy(["--primary"]).pasteboard, .primary)
        XCTAssertEqual(try copy(["-p", "-b"]).pasteboard, .general, "the last selection option wins")
        XCTAssertEqual(try copy(["-P", "notes"]).pasteboard, PasteboardName(rawValue: "notes"))
        XCTAssertEqual(try copy(["--pasteboard=notes"]).pasteboard, PasteboardName(rawValue: "notes"))
        XCTAssertEqual(try copy(["-Pnotes"]).pasteboard, PasteboardName(rawValue: "notes"))
        XCTAssertEqual(try copy(["-P", "general"]).pasteboard, .general)
        assertUsageError(["copy", "-P", ""], mentions: ["invalid pasteboard name"])
        assertUsageError(["copy", "-P", String(repeating: "n", count: 256)], mentions: ["invalid pasteboard name"])
    }

    func testXclipSelectionSpelling() throws {
        XCTAssertEqual(try copy(["-selection", "clipboard"]).pasteboard, .general)
        XCTAssertEqual(try copy(["-selection", "primary"]).pasteboard, .primary)
        XCTAssertEqual(try copy(["-sel", "c"]).pasteboard, .general)
        assertUsageError(["copy", "-selection"], mentions: ["needs a value"])
    }

    func testSensitiveAndTrimNewline() throws {
        let request = try copy(["--sensitive", "-n"])
        XCTAssertTrue(request.sensitive)
        XCTAssertTrue(request.trimNewline)
        XCTAssertTrue(try copy(["--trim-newline"]).trimNewline)
        assertUsageError(["copy", "--sensitive=yes"], mentions: ["--sensitive", "takes no value"])
    }

    func testGroupedShortFlags() throws {
        let request = try copy(["-pn"])
        XCTAssertEqual(request.pasteboard, .primary)
        XCTAssertTrue(request.trimNewline)
        let withValue = try copy(["-nthtml=a.html"])
        XCTAssertTrue(withValue.trimNewline)
        XCTAssertEqual(withValue.sources.map(\.type), [.html])
        assertUsageError(["copy", "-pz"], mentions: ["-z"])
    }

    func testDoubleDashEndsOptions() throws {
        let request = try copy(["-n", "--", "-p", "--sensitive"])
        XCTAssertTrue(request.trimNewline)
        XCTAssertEqual(request.pasteboard, .general)
        XCTAssertFalse(request.sensitive)
        XCTAssertEqual(request.text, "-p --sensitive")
        XCTAssertEqual(try copy(["-"]).text, "-", "a lone dash is an operand")
    }

    func testUnknownOptionsNameTheCulprit() {
        assertUsageError(["copy", "--bogus"], mentions: ["--bogus"])
        assertUsageError(["copy", "-z"], mentions: ["-z"])
        assertUsageError(["copy", "--bogus=1"], mentions: ["--bogus"])
    }
}

final class PasteCommandTests: XCTestCase {
    func paste(_ arguments: [String]) throws -> PasteRequest {
        guard case .paste(let request) = try parse(["paste"] + arguments) else {
            XCTFail("not a paste: \(arguments)")
            return PasteRequest()
        }
        return request
    }

    func testDefaults() throws {
        let request = try paste([])
        XCTAssertEqual(request.pasteboard, .general)
        XCTAssertEqual(request.types, [])
        XCTAssertFalse(request.trimNewline)
        XCTAssertEqual(request.timeoutMilliseconds, 5000)
    }

    func testRepeatedTypesKeepTheirOrder() throws {
        XCTAssertEqual(try paste(["-t", "html", "--type", "public.rtf", "-ttext"]).types,
                       [.html, .rtf, .utf8PlainText])
        assertUsageError(["paste", "-t", ""], mentions: ["invalid type"])
    }

    func testOptions() throws {
        let request = try paste(["-pn", "--timeout", "250"])
        XCTAssertEqual(request.pasteboard, .primary)
        XCTAssertTrue(request.trimNewline)
        XCTAssertEqual(request.timeoutMilliseconds, 250)
        XCTAssertEqual(try paste(["--timeout=3600000"]).timeoutMilliseconds, 3_600_000)
        XCTAssertEqual(try paste(["--timeout", "1"]).timeoutMilliseconds, 1)
    }

    func testTimeoutValidation() {
        for bad in ["0", "-1", "abc", "1.5", "3600001", ""] {
            assertUsageError(["paste", "--timeout", bad], mentions: ["--timeout"])
        }
        assertUsageError(["paste", "--timeout"], mentions: ["--timeout", "needs a value"])
    }

    func testListTypesBecomesTypes() throws {
        var expected = TypesRequest()
        expected.pasteboard = .primary
        expected.timeoutMilliseconds = 100
        XCTAssertEqual(try parse(["paste", "-l", "-p", "--timeout", "100"]), .types(expected))
        XCTAssertEqual(try parse(["paste", "--list-types"]), .types(TypesRequest()))
    }

    func testOperandsAndUnknownOptionsRejected() {
        assertUsageError(["paste", "extra"], mentions: ["extra"])
        assertUsageError(["paste", "--sensitive"], mentions: ["--sensitive"])
    }
}

final class OtherCommandTests: XCTestCase {
    func testTypes() throws {
        XCTAssertEqual(try parse(["types"]), .types(TypesRequest()))
        var primary = TypesRequest()
        primary.pasteboard = .primary
        primary.timeoutMilliseconds = 42
        XCTAssertEqual(try parse(["types", "-p", "--timeout", "42"]), .types(primary))
        assertUsageError(["types", "x"], mentions: ["x"])
        assertUsageError(["types", "--timeout", "0"], mentions: ["--timeout"])
    }

    func testCountAndClear() throws {
        XCTAssertEqual(try parse(["count"]), .count(.general))
        XCTAssertEqual(try parse(["count", "-p"]), .count(.primary))
        XCTAssertEqual(try parse(["count", "-P", "notes"]), .count(PasteboardName(rawValue: "notes")))
        XCTAssertEqual(try parse(["clear"]), .clear(.general))
        XCTAssertEqual(try parse(["clear", "--primary"]), .clear(.primary))
        XCTAssertEqual(try parse(["clear", "-selection", "clipboard"]), .clear(.general))
        assertUsageError(["count", "now"], mentions: ["now"])
        assertUsageError(["clear", "-n"], mentions: ["-n"])
    }

    func testStatus() throws {
        XCTAssertEqual(try parse(["status"]), .status)
        assertUsageError(["status", "-p"], mentions: ["status"])
    }

    func testConvert() throws {
        var request = ConvertRequest()
        request.from = "rtf"
        request.to = "html"
        request.outputPath = "out.html"
        request.inputPath = "in.rtf"
        XCTAssertEqual(try parse(["convert", "--from", "rtf", "--to", "html", "-o", "out.html", "in.rtf"]),
                       .convert(request))
        XCTAssertEqual(try parse(["convert", "in.rtf", "-f", "rtf", "--to=html", "--output=out.html"]),
                       .convert(request))

        var textutil = ConvertRequest()
        textutil.to = "txt"
        XCTAssertEqual(try parse(["convert", "-convert", "txt"]), .convert(textutil), "textutil's spelling")

        var info = ConvertRequest()
        info.info = true
        info.inputPath = "doc.rtfd"
        XCTAssertEqual(try parse(["convert", "--info", "doc.rtfd"]), .convert(info))
        XCTAssertEqual(try parse(["convert", "-info", "doc.rtfd"]), .convert(info))
        XCTAssertEqual(try parse(["convert", "-i", "doc.rtfd"]), .convert(info))
    }

    func testConvertNeedsToUnlessInfo() {
        assertUsageError(["convert"], mentions: ["--to"])
        assertUsageError(["convert", "--from", "rtf", "in.rtf"], mentions: ["--to"])
        assertUsageError(["convert", "--to"], mentions: ["--to", "needs a value"])
        assertUsageError(["convert", "--to", "txt", "a", "b"], mentions: ["one input"])
        assertUsageError(["convert", "--to", "txt", "-p"], mentions: ["-p"])
    }

    func testHelpAndVersion() throws {
        XCTAssertEqual(try parse([]), .help(nil))
        XCTAssertEqual(try parse(["--help"]), .help(nil))
        XCTAssertEqual(try parse(["-h"]), .help(nil))
        XCTAssertEqual(try parse(["help"]), .help(nil))
        XCTAssertEqual(try parse(["help", "copy"]), .help("copy"))
        XCTAssertEqual(try parse(["--version"]), .version)
        XCTAssertEqual(try parse(["-V"]), .version)
        assertUsageError(["help", "frobnicate"], mentions: ["frobnicate"])
        assertUsageError(["help", "copy", "paste"], mentions: ["at most one"])
    }

    func testHelpOptionOfEveryCommand() throws {
        for command in ["copy", "paste", "types", "count", "clear", "convert", "status"] {
            XCTAssertEqual(try parse([command, "--help"]), .help(command), command)
            XCTAssertEqual(try parse([command, "-h"]), .help(command), command)
        }
        XCTAssertEqual(try parse(["copy", "-t", "html", "-t", "png", "--help"]), .help("copy"),
                       "help wins over what would be an error")
    }

    func testUnknownCommandNamesIt() {
        assertUsageError(["frobnicate"], mentions: ["frobnicate"])
        assertUsageError(["--frobnicate"], mentions: ["--frobnicate"])
        assertUsageError(["Copy"], mentions: ["Copy"])
    }

    func testUsageErrorCarriesTheCommand() {
        XCTAssertThrowsError(try parse(["paste", "--timeout", "0"])) { error in
            XCTAssertEqual((error as? UsageError)?.command, "paste")
        }
    }
}

final class MacOSCommandLineTests: XCTestCase {
    func testPBCopy() throws {
        var request = CopyRequest()
        request.detectRichText = true
        XCTAssertEqual(try parse([], "pbcopy"), .copy(request))
        request.pasteboard = PasteboardName(rawValue: "find")
        XCTAssertEqual(try parse(["-pboard", "find"], "pbcopy"), .copy(request))
        request.pasteboard = .general
        XCTAssertEqual(try parse(["-pboard", "general"], "pbcopy"), .copy(request))
        request.pasteboard = .primary
        XCTAssertEqual(try parse(["-pboard", "primary"], "pbcopy"), .copy(request))
        XCTAssertEqual(try parse(["-help"], "pbcopy"), .help("pbcopy"))
    }

    func testPBCopyBadArguments() {
        assertUsageError(["-pboard"], "pbcopy", mentions: ["-pboard"])
        assertUsageError(["-pboard", ""], "pbcopy", mentions: ["-pboard"])
        assertUsageError(["-p"], "pbcopy", mentions: ["-p"])
        assertUsageError(["hello"], "pbcopy", mentions: ["hello"])
    }

    func testPBPastePrefer() throws {
        func types(_ arguments: [String]) throws -> [PasteboardType] {
            guard case .paste(let request) = try parse(arguments, "pbpaste") else { return [] }
            return request.types
        }
        XCTAssertEqual(try types([]), [])
        XCTAssertEqual(try types(["-Prefer", "txt"]), [.utf8PlainText])
        XCTAssertEqual(try types(["-Prefer", "rtf"]), [.rtf, .utf8PlainText])
        XCTAssertEqual(try types(["-Prefer", "ps"]), [.utf8PlainText], "PostScript falls back to text")
        XCTAssertEqual(try parse(["-h"], "pbpaste"), .help("pbpaste"))
    }

    func testPBPastePboard() throws {
        var request = PasteRequest()
        request.pasteboard = .primary
        request.types = [.rtf, .utf8PlainText]
        XCTAssertEqual(try parse(["-pboard", "primary", "-Prefer", "rtf"], "pbpaste"), .paste(request))
        request.pasteboard = PasteboardName(rawValue: "ruler")
        request.types = []
        XCTAssertEqual(try parse(["-pboard", "ruler"], "pbpaste"), .paste(request))
    }

    func testPBPasteBadArguments() {
        assertUsageError(["-Prefer", "pdf"], "pbpaste", mentions: ["-Prefer"])
        assertUsageError(["-Prefer"], "pbpaste", mentions: ["-Prefer"])
        assertUsageError(["-pboard"], "pbpaste", mentions: ["-pboard"])
        assertUsageError(["-x"], "pbpaste", mentions: ["-x"])
    }

    func testOtherProgramNamesParseAsPB() throws {
        XCTAssertEqual(try parse(["count"], "pb"), .count(.general))
        XCTAssertEqual(try parse(["count"], "pb-dev"), .count(.general))
    }
}

final class UsageTests: XCTestCase {
    func testEveryCommandHasItsUsageLine() {
        XCTAssertFalse(Usage.commands.isEmpty)
        for command in Usage.commands {
            XCTAssertTrue(Usage.text(for: command).hasPrefix("usage: pb \(command)"), command)
        }
    }

    func testOverviewListsEveryCommand() {
        XCTAssertTrue(Usage.text(for: nil).hasPrefix("usage: pb <command>"))
        for command in Usage.commands {
            XCTAssertTrue(Usage.overview.contains("\n  \(command) "), command)
        }
    }

    func testMacOSUsage() {
        XCTAssertTrue(Usage.text(for: "pbcopy").hasPrefix("usage: pbcopy"))
        XCTAssertTrue(Usage.text(for: "pbpaste").hasPrefix("usage: pbpaste"))
    }

    func testEveryHelpTopicTheParserReturnsHasText() throws {
        for command in Usage.commands where command != "help" {
            guard case .help(let topic) = try parse([command, "--help"]) else { return XCTFail(command) }
            XCTAssertNotEqual(Usage.text(for: topic), Usage.overview, command)
        }
    }
}

final class WatchReadsCommandTests: XCTestCase {
    func testReadsIsAWatchOfReadsAndRunsNoCommand() throws {
        guard case .watch(let request) = try parse(["watch", "--reads", "--json", "-b"]) else { return XCTFail("not watch") }
        XCTAssertTrue(request.reads)
        XCTAssertEqual(request.format, .json)
        XCTAssertEqual(request.pasteboards, [.general])
        guard case .watch(let plain) = try parse(["watch"]) else { return XCTFail("not watch") }
        XCTAssertFalse(plain.reads)
        assertUsageError(["watch", "--reads", "notify-send"], mentions: ["--reads", "no command"])
    }
}

final class HistoryCommandTests: XCTestCase {
    func testPickTakesAMenuOrACommandAndDefaultsToAuto() throws {
        XCTAssertEqual(try parse(["history", "pick"]), .history(.pick(.auto)))
        XCTAssertEqual(try parse(["history", "pick", "--menu", "rofi"]), .history(.pick(.rofi)))
        XCTAssertEqual(try parse(["history", "pick", "--menu=dmenu"]), .history(.pick(.dmenu)))
        XCTAssertEqual(try parse(["history", "pick", "--menu", "fzf"]), .history(.pick(.fzf)))
        XCTAssertEqual(try parse(["history", "pick", "--menu", "auto"]), .history(.pick(.auto)))
        XCTAssertEqual(try parse(["history", "pick", "--menu-command", "fzf --filter 'two words'"]),
                       .history(.pick(.command("fzf --filter 'two words'"))))
        XCTAssertEqual(try parse(["history", "list", "--limit", "3"]), .history(.list(limit: 3, json: false)))
    }

    func testPickRefusesWhatItCannotUse() {
        assertUsageError(["history", "pick", "--menu", "wofi"], mentions: ["rofi, dmenu, fzf or auto"])
        assertUsageError(["history", "pick", "--menu"], mentions: ["needs a value"])
        assertUsageError(["history", "pick", "--menu-command", "  "], mentions: ["command line"])
        assertUsageError(["history", "pick", "--menu", "rofi", "--menu-command", "fzf"], mentions: ["one of --menu"])
        assertUsageError(["history", "pick", "3"], mentions: ["the menu chooses"])
        assertUsageError(["history", "copy", "1", "--menu", "rofi"], mentions: ["for history pick"])
        assertUsageError(["history", "choose"], mentions: ["pick"])
    }
}

final class FilesCommandTests: XCTestCase {
    func testCopyFilesTakesPathsAndCutImpliesFiles() throws {
        guard case .copy(let copy) = try parse(["copy", "--files", "a b.txt", "/tmp/c"]) else { return XCTFail() }
        XCTAssertEqual(copy.files, ["a b.txt", "/tmp/c"])
        XCTAssertFalse(copy.cut)
        XCTAssertNil(copy.text, "the operands are paths, not text")
        guard case .copy(let cut) = try parse(["copy", "-p", "--cut", "--", "-dash"]) else { return XCTFail() }
        XCTAssertEqual(cut.files, ["-dash"])
        XCTAssertTrue(cut.cut)
        XCTAssertEqual(cut.pasteboard, .primary)
    }

    func testCopyFilesRefusesWhatItCannotUse() {
        assertUsageError(["copy", "--files"], mentions: ["needs the paths"])
        assertUsageError(["copy", "--cut"], mentions: ["needs the paths"])
        assertUsageError(["copy", "--files", "-t", "html", "a"], mentions: ["takes no -t"])
        assertUsageError(["copy", "--files", "-n", "a"], mentions: ["no standard input"])
    }

    func testPasteFilesTakesADirectoryAndForce() throws {
        guard case .paste(let here) = try parse(["paste", "--files"]) else { return XCTFail() }
        XCTAssertTrue(here.files)
        XCTAssertNil(here.filesDirectory, "the current directory")
        XCTAssertFalse(here.force)
        guard case .paste(let there) = try parse(["paste", "--files", "--force", "/tmp/dest"]) else { return XCTFail() }
        XCTAssertEqual(there.filesDirectory, "/tmp/dest")
        XCTAssertTrue(there.force)
    }

    func testPasteFilesRefusesWhatItCannotUse() {
        assertUsageError(["paste", "--files", "a", "b"], mentions: ["one directory"])
        assertUsageError(["paste", "--files", "-t", "html"], mentions: ["no -t"])
        assertUsageError(["paste", "--files", "--item", "0"], mentions: ["--item"])
        assertUsageError(["paste", "--force"], mentions: ["--force is for --files"])
        assertUsageError(["paste", "somewhere"], mentions: ["unexpected argument"])
    }
}

final class TerminalCopyCommandTests: XCTestCase {
    func testOSC52CopiesTextToClipboardOrPrimary() throws {
        guard case .copy(let copy) = try parse(["copy", "--osc52", "-n", "some", "text"]) else { return XCTFail() }
        XCTAssertTrue(copy.osc52)
        XCTAssertEqual(copy.text, "some text")
        XCTAssertTrue(copy.trimNewline)
        guard case .copy(let primary) = try parse(["copy", "--osc52", "-p"]) else { return XCTFail() }
        XCTAssertEqual(primary.pasteboard, .primary)
    }

    func testOSC52RefusesWhatATerminalCannotCopy() {
        assertUsageError(["copy", "--osc52", "-t", "html"], mentions: ["text only"])
        assertUsageError(["copy", "--osc52", "--files", "a"], mentions: ["text only"])
        assertUsageError(["copy", "--osc52", "-P", "_MINE"], mentions: ["CLIPBOARD or PRIMARY"])
        assertUsageError(["copy", "--osc52", "--sensitive"], mentions: ["the terminal copies"])
        assertUsageError(["copy", "--osc52", "--paste-once"], mentions: ["the terminal copies"])
        assertUsageError(["copy", "--osc52", "--expire", "5"], mentions: ["make it expire"])
        assertUsageError(["copy", "--osc52", "--local-only"], mentions: ["another machine"])
    }

    func expiring(_ arguments: [String]) throws -> CopyRequest {
        guard case .copy(let request) = try parse(["copy"] + arguments) else { throw UsageError("not a copy", command: "copy") }
        return request
    }

    func testExpiryIsSecondsWithFractionsFromMoreThanZeroToSevenDays() throws {
        XCTAssertEqual(try expiring(["--expire", "45"]).expiresAfterMilliseconds, 45_000)
        XCTAssertEqual(try expiring(["--expire", "0.25"]).expiresAfterMilliseconds, 250)
        XCTAssertEqual(try expiring(["--expire", "0.0001"]).expiresAfterMilliseconds, 1, "a fraction of a millisecond rounds up")
        XCTAssertEqual(try expiring(["--expire=604800"]).expiresAfterMilliseconds, 604_800_000)
        XCTAssertNil(try expiring([]).expiresAfterMilliseconds)
        for bad in ["0", "-1", "604801", "abc", "", "nan", "inf", "1e3", " 5", "0x10"] {
            assertUsageError(["copy", "--expire", bad], mentions: ["--expire takes a number of seconds"])
        }
        XCTAssertTrue(try expiring(["--local-only"]).localOnly)
        XCTAssertFalse(try expiring([]).localOnly)
    }
}
