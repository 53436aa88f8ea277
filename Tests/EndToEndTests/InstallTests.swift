// SPDX-License-Identifier: Apache-2.0
import Foundation
import TestSupport
import XCTest

/// `make install`, `make uninstall` and `make deb` from this checkout into temporary directories: the
/// exact file list, the pbcopy/pbpaste links, the systemd user units (`systemd-analyze --user verify`), the
/// XDG autostart entry (`desktop-file-validate`),
/// the man pages, and the Debian package: its contents, dependencies and maintainer, and lintian's verdict (no error,
/// no warning). No X needed; `make test-package` (Tests/Package/test-package.sh) installs it on a clean Debian.
///
/// The programs come from the release build in `.build/release` when there is one (or from
/// `$PASTEBOARD_RELEASE_DIR`), installed with `PB_SKIP_BUILD=1`. Otherwise the test builds release
/// itself, into `.build/install-tests`: `swift test` holds SwiftPM's lock on `.build` while tests run, so
/// `make release` from inside a test would wait forever. In CI (`CI=true`) the tools these tests use
/// (systemd-analyze, groff, dpkg-deb, readelf, lintian) must be installed; elsewhere a missing one skips its test.
final class InstallTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Every file `make install` puts under PREFIX, for a prefix outside $HOME (the units then go to
    /// lib/systemd/user and the autostart entry to etc/xdg/autostart; for one inside, to share/systemd/user
    /// and ~/.config/autostart, outside the prefix: `autostartDirectory` nil).
    static func expectedFiles(unitDirectory: String = "lib/systemd/user", autostartDirectory: String? = "etc/xdg/autostart") -> Set<String> {
        Set(autostartDirectory.map { [$0 + "/pasteboardd.desktop"] } ?? []).union([
            "bin/pasteboardd", "bin/pb", "bin/pbcopy", "bin/pbpaste",
            unitDirectory + "/pasteboardd.service", unitDirectory + "/pasteboardd.socket",
            "share/man/man1/pb.1", "share/man/man1/pbcopy.1", "share/man/man1/pbpaste.1",
            "share/man/man1/pasteboardd.1", "share/man/man5/pasteboardd.conf.5",
            "share/bash-completion/completions/pb", "share/bash-completion/completions/pbcopy",
            "share/bash-completion/completions/pbpaste",
            "share/zsh/site-functions/_pb",
            "share/fish/vendor_completions.d/pb.fish", "share/fish/vendor_completions.d/pbcopy.fish",
            "share/fish/vendor_completions.d/pbpaste.fish",
        ])
    }

    /// The symbolic links among them and their targets.
    static let expectedLinks = [
        "bin/pbcopy": "pb", "bin/pbpaste": "pb",
        "share/bash-completion/completions/pbcopy": "pb", "share/bash-completion/completions/pbpaste": "pb",
    ]

    /// Every file the .deb holds, relative to /usr (etc/… relative to /): the install with PREFIX=/usr,
    /// zsh's completion in Debian's vendor-completions, man pages gzipped, and the package's documents.
    static var expectedPackageFiles: Set<String> {
        Set(expectedFiles().map {
            $0.hasPrefix("share/man/") ? $0 + ".gz" : $0.replacingOccurrences(of: "zsh/site-functions", with: "zsh/vendor-completions")
        }).union(["share/doc/pasteboard/copyright", "share/doc/pasteboard/changelog.gz", "share/doc/pasteboard/NOTICE"])
    }

    static let manPages = ["pb.1", "pbcopy.1", "pbpaste.1", "pasteboardd.1", "pasteboardd.conf.5"]

    // MARK: - install and uninstall

    func testInstallPutsExactlyTheManifestAndUninstallRemovesExactlyIt() throws {
        let prefix = try temporaryDirectory("prefix")
        // Someone else's files in the same prefix: uninstall must leave them.
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        try "#!/bin/sh\n".write(toFile: prefix + "/bin/other-tool", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: prefix + "/share/man/man1", withIntermediateDirectories: true)
        try ".TH OTHER 1\n".write(toFile: prefix + "/share/man/man1/other.1", atomically: true, encoding: .utf8)
        let foreign: Set<String> = ["bin/other-tool", "share/man/man1/other.1"]

        try make("install", "PREFIX=\(prefix)")
        XCTAssertEqual(try files(under: prefix), Self.expectedFiles().union(foreign))
        for (link, target) in Self.expectedLinks {
            XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: prefix + "/" + link), target, link)
        }
        for program in ["pasteboardd", "pb"] {
            XCTAssertTrue(FileManager.default.isExecutableFile(atPath: prefix + "/bin/" + program), program)
        }

        // The installed pb answers to each of its names.
        let runner = Runner(environment: ProcessInfo.processInfo.environment)
        let version = try Self.version()
        XCTAssertEqual(try runner.run(prefix + "/bin/pb", ["--version"]).text, "pb \(version)\n")
        XCTAssertEqual(try runner.run(prefix + "/bin/pasteboardd", ["--version"]).text, "pasteboardd \(version)\n")
        let pbcopy = try runner.run(prefix + "/bin/pbcopy", ["-help"])
        XCTAssertEqual(pbcopy.status, 0, pbcopy.stderr)
        XCTAssertTrue(pbcopy.text.hasPrefix("usage: pbcopy"), pbcopy.text)
        let pbpaste = try runner.run(prefix + "/bin/pbpaste", ["-help"])
        XCTAssertTrue(pbpaste.text.hasPrefix("usage: pbpaste"), pbpaste.text)

        // Placeholders are substituted: the unit starts the installed daemon, the pages carry the version.
        let unit = try String(contentsOfFile: prefix + "/lib/systemd/user/pasteboardd.service", encoding: .utf8)
        XCTAssertTrue(unit.contains("\nExecStart=\(prefix)/bin/pasteboardd\n"), unit)
        XCTAssertFalse(unit.contains("@BINDIR@"))
        let entry = try String(contentsOfFile: prefix + "/etc/xdg/autostart/pasteboardd.desktop", encoding: .utf8)
        XCTAssertTrue(entry.contains("\nExec=\(prefix)/bin/pasteboardd --autostart\n"), entry)
        for page in Self.manPages {
            let text = try String(contentsOfFile: prefix + "/share/man/man\(page.suffix(1))/" + page, encoding: .utf8)
            XCTAssertTrue(text.contains("\"pasteboard \(version)\""), page)
            XCTAssertFalse(text.contains("@VERSION@"), page)
        }

        // Installing again over an installed tree changes nothing.
        try make("install", "PREFIX=\(prefix)")
        XCTAssertEqual(try files(under: prefix), Self.expectedFiles().union(foreign))

        try make("uninstall", "PREFIX=\(prefix)")
        XCTAssertEqual(try files(under: prefix), foreign, "uninstall removes exactly what install put")
    }

    func testHomePrefixPutsTheUnitWhereSystemctlUserLooks() throws {
        // PREFIX=~/.local, with ~ unexpanded as make gets it when quoted, under a scratch $HOME.
        let home = try temporaryDirectory("home")
        try make("install", "PREFIX=~/.local", environment: ["HOME": home])
        let expected = Self.expectedFiles(unitDirectory: "share/systemd/user", autostartDirectory: nil)
        XCTAssertEqual(try files(under: home + "/.local"), expected)
        XCTAssertEqual(try files(under: home + "/.config"), ["autostart/pasteboardd.desktop"], "where sessions look for a user's entries")
        let unit = try String(contentsOfFile: home + "/.local/share/systemd/user/pasteboardd.service", encoding: .utf8)
        XCTAssertTrue(unit.contains("\nExecStart=\(home)/.local/bin/pasteboardd\n"), unit)
        try make("uninstall", "PREFIX=~/.local", environment: ["HOME": home])
        XCTAssertEqual(try files(under: home), [])
    }

    func testDestDirStagesWithTheFinalPaths() throws {
        let stage = try temporaryDirectory("stage")
        try make("install", "PREFIX=/usr", "DESTDIR=\(stage)")
        XCTAssertEqual(try files(under: stage + "/usr"), Self.expectedFiles(autostartDirectory: nil))
        XCTAssertEqual(try files(under: stage + "/etc"), ["xdg/autostart/pasteboardd.desktop"], "sysconfdir is /etc for /usr")
        let unit = try String(contentsOfFile: stage + "/usr/lib/systemd/user/pasteboardd.service", encoding: .utf8)
        XCTAssertTrue(unit.contains("\nExecStart=/usr/bin/pasteboardd\n"), unit)
        try make("uninstall", "PREFIX=/usr", "DESTDIR=\(stage)")
        XCTAssertEqual(try files(under: stage), [])
    }

    // MARK: - systemd unit

    /// `systemd-analyze --user verify` on the installed unit: the unit parses with no warning, its
    /// ExecStart is executable, its targets exist and its Documentation= man pages are found (MANPATH
    /// points at the installed ones). A user manager needs `$XDG_RUNTIME_DIR`, which a container or CI
    /// shell without a login session lacks, so the test gives it a private one.
    func testInstalledUnitPassesSystemdAnalyzeVerify() throws {
        let analyze = try requireTool("systemd-analyze", package: "systemd")
        let prefix = try temporaryDirectory("unit")
        try make("install", "PREFIX=\(prefix)")
        let runtime = try temporaryDirectory("runtime")
        XCTAssertEqual(chmod(runtime, 0o700), 0)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtime
        environment["MANPATH"] = prefix + "/share/man"
        let unit = prefix + "/lib/systemd/user/pasteboardd.service"
        let socket = prefix + "/lib/systemd/user/pasteboardd.socket"
        let verify = try Runner(environment: environment).run(analyze, ["--user", "verify", unit, socket], timeout: 120)
        XCTAssertEqual(verify.status, 0, verify.stderr)
        // verify exits 0 on unknown keys and unparsable values but warns: no output at all is the pass.
        XCTAssertEqual(verify.text + verify.stderr, "")
        let socketText = try String(contentsOfFile: socket, encoding: .utf8)
        for line in ["ListenStream=%t/pasteboard/control.sock", "SocketMode=0600", "DirectoryMode=0700", "WantedBy=sockets.target"] {
            XCTAssertTrue(socketText.split(separator: "\n").contains(Substring(line)), line)
        }

        let text = try String(contentsOfFile: unit, encoding: .utf8)
        for line in ["Type=notify", "Restart=on-failure", "RestartSec=1", "PartOf=graphical-session.target",
                     "After=graphical-session.target", "WantedBy=graphical-session.target", "PrivateTmp=no",
                     "NoNewPrivileges=yes", "Also=pasteboardd.socket"] {
            XCTAssertTrue(text.split(separator: "\n").contains(Substring(line)), line)
        }
        // The X socket is /tmp/.X11-unix: nothing may hide /tmp or the home directory.
        for hiding in ["PrivateTmp=yes", "ProtectHome=", "ProtectSystem=", "PrivateNetwork=", "TemporaryFileSystem="] {
            XCTAssertFalse(text.contains("\n" + hiding), hiding)
        }
        // It starts right on Wayland sessions too: nothing requires DISPLAY, and WAYLAND_DISPLAY is imported with it.
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            XCTAssertFalse(line.hasPrefix("Condition") || line.hasPrefix("Assert"), "no condition keeps it off a session: \(line)")
            XCTAssertFalse(line.contains("DISPLAY"), "no setting names a display variable: \(line)")
        }
        XCTAssertTrue(text.contains("systemctl --user import-environment DISPLAY XAUTHORITY WAYLAND_DISPLAY"))
        XCTAssertTrue(socketText.contains("systemctl --user import-environment DISPLAY XAUTHORITY WAYLAND_DISPLAY"))
    }

    /// The XDG autostart entry passes `desktop-file-validate` and runs `pasteboardd --autostart`, which
    /// starts nothing when pasteboardd is already served (ActivationTests runs it against real listeners).
    func testInstalledAutostartEntryIsValid() throws {
        let validate = try requireTool("desktop-file-validate", package: "desktop-file-utils")
        let prefix = try temporaryDirectory("autostart")
        try make("install", "PREFIX=\(prefix)")
        let entry = prefix + "/etc/xdg/autostart/pasteboardd.desktop"
        let result = try Runner(environment: ProcessInfo.processInfo.environment).run(validate, [entry])
        XCTAssertEqual(result.status, 0, result.text + result.stderr)
        XCTAssertEqual(result.text + result.stderr, "", "no warning either")
        let text = try String(contentsOfFile: entry, encoding: .utf8)
        XCTAssertTrue(text.contains("\nExec=\(prefix)/bin/pasteboardd --autostart\n"), text)
        XCTAssertTrue(text.contains("\nNoDisplay=true\n"), "not an application to show in menus")
    }

    // MARK: - man pages

    func testManPagesRenderWithoutWarnings() throws {
        let groff = try requireTool("groff", package: "groff-base")
        let runner = Runner(environment: ProcessInfo.processInfo.environment)
        for page in Self.manPages {
            let result = try runner.run(groff, ["-man", "-t", "-Tutf8", "-ww", "-z", Self.root + "/man/" + page])
            XCTAssertEqual(result.status, 0, page)
            XCTAssertEqual(result.stderr, "", page)
        }
    }

    /// Every option the programs' own help lists is in their man page (pb's from `pb CMD --help`).
    func testManPagesDocumentEveryCommandAndOption() throws {
        let pb = Tools.buildDirectory + "/pb"
        if !FileManager.default.isExecutableFile(atPath: pb) && !Tools.isCI {
            throw XCTSkip(SkipLog.record(name, "no debug build of pb"))
        }
        let runner = Runner(environment: ProcessInfo.processInfo.environment)
        let page = try String(contentsOfFile: Self.root + "/man/pb.1", encoding: .utf8)
        for command in ["copy", "paste", "types", "count", "clear", "convert", "status", "history", "help"] {
            XCTAssertTrue(page.contains("\n.B \(command)\n") || page.contains("\n.BR \(command) "), "pb.1 lacks \(command)")
            let help = try runner.run(pb, [command, "--help"]).text
            for option in Self.options(in: help) {
                XCTAssertTrue(page.contains(Self.roff(option)), "pb.1 lacks \(option) of pb \(command)")
            }
        }
        for (program, expected) in ["pbcopy": ["-pboard"], "pbpaste": ["-pboard", "-Prefer"]] {
            let text = try String(contentsOfFile: Self.root + "/man/\(program).1", encoding: .utf8)
            for option in expected { XCTAssertTrue(text.contains(Self.roff(option)), "\(program).1 lacks \(option)") }
        }
        let conf = try String(contentsOfFile: Self.root + "/man/pasteboardd.conf.5", encoding: .utf8)
        let keys = ["maxTextBytes": "67108864", "maxImageBytes": "67108864", "maxSnapshotBytes": "268435456",
                    "transferTimeoutMs": "5000", "ownerTimeoutMs": "5000", "historyLength": "200",
                    "historyMaxBytes": "536870912", "recordPrimary": "false", "syncPrimaryToClipboard": "false",
                    "enrichRichText": "false", "ramOnly": "false", "excludedWindowClasses": "[]"]
        for (key, value) in keys {
            XCTAssertTrue(conf.contains("\n\(key)\t") && conf.contains("\t\(value)"), "pasteboardd.conf.5 row for \(key)")
            XCTAssertTrue(conf.contains("\n.B \(key)\n"), "pasteboardd.conf.5 describes \(key)")
        }
    }

    // MARK: - Debian package

    func testDebianPackageHoldsTheInstallAndDependsOnWhatTheProgramsLink() throws {
        let dpkgDeb = try requireTool("dpkg-deb", package: "dpkg")
        let readelf = try requireTool("readelf", package: "binutils")
        let runner = Runner(environment: ProcessInfo.processInfo.environment)
        let deb = try buildPackage()
        let version = try Self.version()

        // Contents: the install with PREFIX=/usr and Debian's places (zsh's vendor-completions), man pages
        // gzipped as Debian wants, the copyright file, the changelog and NOTICE.
        let listing = try runner.run(dpkgDeb, ["-c", deb])
        XCTAssertEqual(listing.status, 0, listing.stderr)
        var entries: Set<String> = [], links: [String: String] = [:]
        for line in listing.text.split(separator: "\n") where !line.hasPrefix("d") {
            let name = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(5).joined(separator: " ")
            let parts = name.components(separatedBy: " -> ")
            // ./usr/bin/pb → bin/pb (relative to PREFIX=/usr); ./etc/xdg/… stays etc/xdg/… (sysconfdir /etc).
            var path = String(parts[0].dropFirst("./".count))
            if path.hasPrefix("usr/") { path = String(path.dropFirst("usr/".count)) }
            entries.insert(path)
            if parts.count == 2 { links[path] = parts[1] }
        }
        XCTAssertEqual(entries, Self.expectedPackageFiles)
        let conffiles = try runner.run(dpkgDeb, ["-I", deb, "conffiles"])
        XCTAssertEqual(conffiles.text, "/etc/xdg/autostart/pasteboardd.desktop\n", "a file in /etc is a conffile, as Debian wants")
        XCTAssertEqual(links, Self.expectedLinks)
        XCTAssertTrue(listing.text.contains("root/root"), "--root-owner-group")
        XCTAssertFalse(listing.text.split(separator: "\n").contains { !$0.contains(" root/root ") })
        // md5sums names every regular file under usr/ (what debsums checks), with its sum.
        let sums = try runner.run(dpkgDeb, ["-I", deb, "md5sums"]).text.split(separator: "\n")
        XCTAssertEqual(Set(sums.map { String($0.split(separator: " ", omittingEmptySubsequences: true)[1]) }),
                       Set(entries.filter { !$0.hasPrefix("etc/") && links[$0] == nil }.map { "usr/" + $0 }))
        // The changelog is CHANGELOG.md's, newest first, for this version.
        let changelog = try runner.run("sh", ["-c", "dpkg-deb --fsys-tarfile \"$1\" | tar -xOf - ./usr/share/doc/pasteboard/changelog.gz | gzip -d", "sh", deb])
        XCTAssertTrue(changelog.text.hasPrefix("pasteboard (\(version)) unstable; urgency=medium\n"), changelog.text + changelog.stderr)

        // Control: name, version, Depends naming exactly the packages of the libraries the programs link
        // (readelf's NEEDED entries, found with dpkg -S): libX11, libX11-xcb, libxcb, libXfixes, and for the static Swift runtime
        // libgcc_s, libm and libc (libstdc++ is linked in statically: link/libstdc++.so), and procps for the
        // kill(1) of the unit's ExecReload; Recommends naming the
        // packages of the image libraries the programs open on first use (the SONAMEs in CImageShims).
        let field = { (name: String) in try runner.run(dpkgDeb, ["-f", deb, name]).text.trimmingCharacters(in: .whitespacesAndNewlines) }
        XCTAssertEqual(try field("Package"), "pasteboard")
        XCTAssertEqual(try field("Version"), version)
        XCTAssertEqual(try field("Architecture"), try Self.architecture())
        let control = try String(contentsOfFile: Self.root + "/debian/control", encoding: .utf8)
        let maintainer = control.split(separator: "\n").first { $0.hasPrefix("Maintainer: ") }.map { String($0.dropFirst("Maintainer: ".count)) }
        XCTAssertEqual(try field("Maintainer"), maintainer, "without MAINTAINER, debian/control's")
        let packages = { (list: String) in
            Set(list.split(separator: ",").map { String($0.trimmingCharacters(in: .whitespaces).split(separator: " ")[0]) })
        }
        let depends = packages(try field("Depends")), recommends = packages(try field("Recommends"))
        var linked: Set<String> = []
        for program in ["pasteboardd", "pb"] {
            let dynamic = try runner.run(readelf, ["-d", try Self.releaseDirectory() + "/" + program]).text
            for library in dynamic.split(separator: "\n") where library.contains("(NEEDED)") {
                guard let open = library.firstIndex(of: "["), let close = library.lastIndex(of: "]") else { continue }
                linked.formUnion(try Self.packages(holding: String(library[library.index(after: open)..<close])))
            }
        }
        // libwayland-client0: pasteboardd serves a Wayland seat too (the Wayland door; 60 kB, in every Wayland desktop).
        // libxcb1 and libx11-xcb1: INCR chunks are read through the connection's XCB side (pbx_get_property; libX11
        // itself depends on libxcb1, and libx11-xcb1 is 16 kB).
        XCTAssertEqual(linked, ["libc6", "libgcc-s1", "libx11-6", "libx11-xcb1", "libxcb1", "libxfixes3", "libwayland-client0"],
                       "the programs link only these")
        XCTAssertEqual(depends, linked.union(["procps"]),
                       "Depends = the packages of the libraries pasteboardd and pb link (dpkg-shlibdeps), and kill(1)'s for ExecReload")
        let unit = try String(contentsOfFile: Self.root + "/systemd/pasteboardd.service", encoding: .utf8)
        XCTAssertTrue(unit.contains("\nExecReload=kill "), "procps is there for the unit's kill")
        let shims = try String(contentsOfFile: Self.root + "/Sources/CImageShims/shims.c", encoding: .utf8)
        var opened: Set<String> = []
        for line in shims.split(separator: "\n") where line.hasPrefix("PBI_LIBRARY(") {
            opened.formUnion(try Self.packages(holding: String(line.split(separator: "\"")[1])))
        }
        XCTAssertEqual(opened, ["libspng0", "zlib1g", "libdeflate0", "libturbojpeg0", "libwebp7", "libgif7", "libtiff6"])
        // libXRes, which CX11Shims opens on first use to name a window's process (who copied, who read).
        let x11Shims = try String(contentsOfFile: Self.root + "/Sources/CX11Shims/shims.c", encoding: .utf8)
        var openedByX: Set<String> = []
        for line in x11Shims.split(separator: "\n") where line.contains("dlopen(\"") {
            openedByX.formUnion(try Self.packages(holding: String(line.split(separator: "\"")[1])))
        }
        XCTAssertEqual(openedByX, ["libxres1"])
        XCTAssertEqual(recommends, opened.union(openedByX),
                       "Recommends = the packages of the libraries the programs open on first use (the image libraries, libXRes)")
        XCTAssertEqual(linked.intersection(opened.union(openedByX)), [], "pasteboardd and pb link none of them (readelf -d: NEEDED)")

        // It installs into a scratch root and removes without a trace.
        let root = try temporaryDirectory("dpkg-root")
        for directory in ["info", "updates", "triggers"] {
            try FileManager.default.createDirectory(atPath: root + "/var/lib/dpkg/" + directory, withIntermediateDirectories: true)
        }
        XCTAssertTrue(FileManager.default.createFile(atPath: root + "/var/lib/dpkg/status", contents: Data()))
        let dpkg = ["--root=\(root)", "--force-depends", "--force-not-root", "--force-script-chrootless"]
        let install = try runner.run("dpkg", dpkg + ["-i", deb], timeout: 120)
        XCTAssertEqual(install.status, 0, install.stderr)
        let expected = Self.expectedPackageFiles, inEtc = expected.filter { $0.hasPrefix("etc/") }
        XCTAssertEqual(try files(under: root + "/usr"), expected.subtracting(inEtc))
        XCTAssertEqual(Set(try files(under: root + "/etc").map { "etc/" + $0 }), inEtc)
        let remove = try runner.run("dpkg", dpkg + ["-r", "pasteboard"], timeout: 120)
        XCTAssertEqual(remove.status, 0, remove.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/usr"), "dpkg -r leaves nothing of ours")
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/etc/xdg/autostart/pasteboardd.desktop"), "a conffile stays until purged")
        let purge = try runner.run("dpkg", dpkg + ["-P", "pasteboard"], timeout: 120)
        XCTAssertEqual(purge.status, 0, purge.stderr)
        XCTAssertEqual(try files(under: root + "/etc"), [], "dpkg -P leaves nothing of ours")
    }

    /// lintian, Debian's package checker, on the package `make deb` builds: no error and no warning. Info and
    /// pedantic tags are printed with a failure but not judged; the package overrides no tag.
    /// Here rather than in `make test-package`: the .deb is built here anyway (15 s), lintian takes about 10 s,
    /// and what it judges (the control file, copyright, changelog, man pages, units) changes in everyday work.
    func testLintianFindsNoErrorAndNoWarning() throws {
        let lintian = try requireTool("lintian", package: "lintian")
        let deb = try buildPackage()
        let result = try Runner(environment: ProcessInfo.processInfo.environment)
            .run(lintian, ["--fail-on", "error,warning", "--display-info", "--pedantic", "--no-tag-display-limit", deb], timeout: 600)
        let judged = result.text.split(separator: "\n").filter { $0.hasPrefix("E: ") || $0.hasPrefix("W: ") }
        XCTAssertEqual(judged, [], "lintian \(deb):\n\(result.text)")
        XCTAssertEqual(result.status, 0, result.text + result.stderr)
        XCTAssertFalse(try Runner(environment: ProcessInfo.processInfo.environment).run("dpkg-deb", ["-c", deb]).text
            .contains("lintian/overrides"), "no tag is overridden")
    }

    /// `make deb MAINTAINER="Name <mail>"` signs the package and its changelog with that name; without it the
    /// package is debian/control's (as the default package test checks); an address that is not
    /// "Name <address>" is refused with the reason, and no package is left behind.
    func testMaintainerIsTheOneGiven() throws {
        let runner = Runner(environment: ProcessInfo.processInfo.environment)
        let deb = try buildPackage(maintainer: "Jane Packager <jane@example.org>")
        XCTAssertEqual(try runner.run("dpkg-deb", ["-f", deb, "Maintainer"]).text, "Jane Packager <jane@example.org>\n")
        let changelog = try runner.run("sh", ["-c", "dpkg-deb --fsys-tarfile \"$1\" | tar -xOf - ./usr/share/doc/pasteboard/changelog.gz | gzip -d", "sh", deb])
        XCTAssertTrue(changelog.text.contains("\n -- Jane Packager <jane@example.org>  "), changelog.text)

        let output = try temporaryDirectory("bad-maintainer")
        let refused = try makeResult("deb", "DEB_DIR=\(output)", "MAINTAINER=root@localhost")
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("the maintainer must be 'Name <address>'"), refused.stderr)
        XCTAssertEqual(try files(under: output).filter { $0.hasSuffix(".deb") }, [])
    }

    /// The release link lays out first the functions link/order.txt lists (docs/performance.md "Code layout"):
    /// the list still names the programs' functions (else `make order` is due), and in each program the
    /// listed functions come first, side by side — what keeps the idle daemon's code pages few.
    func testReleaseProgramsLayOutTheListedFunctionsFirst() throws {
        let nm = try requireTool("nm", package: "binutils")
        let runner = Runner(environment: ProcessInfo.processInfo.environment)
        let flags = try Self.releaseFlags()
        guard flags.contains("--symbol-ordering-file") else {
            if Tools.isCI { throw InstallTestError("make release-flags has no code layout (no ld.lld beside swift?): \(flags)") }
            throw XCTSkip(SkipLog.record(name, "the toolchain has no ld.lld: release builds are not laid out"))
        }
        let listedNames = try String(contentsOfFile: Self.root + "/link/order.txt", encoding: .utf8)
            .split(separator: "\n").map(String.init).filter { !$0.isEmpty && !$0.hasPrefix("#") }
        let listed = Set(listedNames)
        XCTAssertGreaterThan(listed.count, 500, "link/order.txt lists the functions that run")
        var definedInEither: Set<String> = []
        for program in ["pasteboardd", "pb"] {
            let path = try Self.releaseDirectory() + "/" + program
            let symbols = try runner.run(nm, ["-n", "--defined-only", path])
            XCTAssertEqual(symbols.status, 0, symbols.stderr)
            // Code symbols by address; names sharing an address (aliases) count once.
            var namesAt: [(address: UInt64, names: [String])] = []
            for line in symbols.text.split(separator: "\n") {
                let fields = line.split(separator: " ")
                guard fields.count == 3, "tTwW".contains(fields[1]), let address = UInt64(fields[0], radix: 16) else { continue }
                if namesAt.last?.address == address { namesAt[namesAt.count - 1].names.append(String(fields[2])) }
                else { namesAt.append((address, [String(fields[2])])) }
            }
            let inProgram = namesAt.filter { $0.names.contains(where: listed.contains) }.count
            definedInEither.formUnion(namesAt.flatMap(\.names).filter(listed.contains))
            XCTAssertGreaterThan(inProgram, 300, "\(program) defines the listed functions")
            let first = namesAt.prefix(inProgram)
            let firstListed = first.filter { $0.names.contains(where: listed.contains) }.count
            XCTAssertGreaterThanOrEqual(Double(firstListed), 0.9 * Double(inProgram),
                                        "\(program): the first \(inProgram) functions by address are the listed ones (\(firstListed) are); " +
                                        "a release tree built with other flags: make release builds it again")
        }
        XCTAssertGreaterThanOrEqual(Double(definedInEither.count), 0.9 * Double(listed.count),
                                    "link/order.txt names functions the programs no longer have: run make order")
    }

    // MARK: - Helpers

    /// Runs make in the repository with `arguments`, installing the existing release build.
    func make(_ arguments: String..., environment extra: [String: String] = [:],
              file: StaticString = #filePath, line: UInt = #line) throws {
        let release = try Self.releaseDirectory()
        var environment = Self.makeEnvironment
        environment.merge(extra) { $1 }
        let result = try Runner(environment: environment).run(
            "make", ["-C", Self.root, "--no-print-directory"] + arguments + ["PB_SKIP_BUILD=1", "RELEASE_DIR=\(release)"],
            timeout: 300)
        XCTAssertEqual(result.status, 0, "make \(arguments.joined(separator: " ")): \(result.stderr)", file: file, line: line)
        if result.status != 0 { throw InstallTestError("make \(arguments.joined(separator: " ")) failed") }
    }

    /// make's result, whatever its status.
    func makeResult(_ arguments: String...) throws -> RunResult {
        try Runner(environment: Self.makeEnvironment).run(
            "make", ["-C", Self.root, "--no-print-directory"] + arguments + ["PB_SKIP_BUILD=1", "RELEASE_DIR=\(try Self.releaseDirectory())"],
            timeout: 300)
    }

    /// `make deb` into a temporary directory; the package's path.
    func buildPackage(maintainer: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let output = try temporaryDirectory("deb")
        if let maintainer {
            try make("deb", "DEB_DIR=\(output)", "MAINTAINER=\(maintainer)", file: file, line: line)
        } else {
            try make("deb", "DEB_DIR=\(output)", file: file, line: line)
        }
        let deb = "\(output)/pasteboard_\(try Self.version())_\(try Self.architecture()).deb"
        XCTAssertTrue(FileManager.default.fileExists(atPath: deb), deb, file: file, line: line)
        return deb
    }

    /// `dpkg --print-architecture`.
    static func architecture() throws -> String {
        try Runner(environment: ProcessInfo.processInfo.environment).run("dpkg", ["--print-architecture"])
            .text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The installed packages holding a file named `name` (`dpkg -S */name`): "libc6:amd64: /lib/…/libc.so.6",
    /// or "a:amd64, b:amd64: path" when shared.
    static func packages(holding name: String) throws -> Set<String> {
        let owner = try Runner(environment: ProcessInfo.processInfo.environment).run("dpkg-query", ["-S", "*/" + name])
        guard owner.status == 0 else { throw InstallTestError("no package holds \(name): \(owner.stderr)") }
        var packages: Set<String> = []
        for line in owner.text.split(separator: "\n") where !line.hasPrefix("diversion") {
            for package in line.components(separatedBy: ": ")[0].split(separator: ",") {
                packages.insert(String(package.trimmingCharacters(in: .whitespaces).split(separator: ":")[0]))
            }
        }
        return packages
    }

    /// Every file and symbolic link under `directory`, relative to it (directories left out).
    func files(under directory: String) throws -> Set<String> {
        var found: Set<String> = []
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
        while let path = enumerator.nextObject() as? String {
            let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/" + path)
            if attributes[.type] as? FileAttributeType != .typeDirectory { found.insert(path) }
        }
        return found
    }

    func temporaryDirectory(_ name: String) throws -> String {
        let path = NSTemporaryDirectory() + "pb-install-\(name)-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    /// The tool's path; in CI a missing tool fails the test, elsewhere it skips it.
    func requireTool(_ name: String, package: String) throws -> String {
        if let path = Tools.path(of: name) { return path }
        if Tools.isCI { throw InstallTestError("\(name) is not installed: `make test` must install \(package)") }
        throw XCTSkip(SkipLog.record(self.name, "\(name) is not installed (Debian package \(package))"))
    }

    /// The version in VERSION, the one place it is written.
    static func version() throws -> String {
        let version = try String(contentsOfFile: root + "/VERSION", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !version.isEmpty else { throw InstallTestError("VERSION is empty") }
        return version
    }

    /// Long options (`--name`) in a help text.
    static func options(in help: String) -> Set<String> {
        var options: Set<String> = []
        for word in help.split(whereSeparator: { " \n\t,[]|()=".contains($0) }) where word.hasPrefix("--") && word.count > 2 {
            options.insert(String(word))
        }
        return options
    }

    /// An option as roff writes it (`\-\-type`).
    static func roff(_ option: String) -> String { option.replacingOccurrences(of: "-", with: "\\-") }

    // MARK: The release build

    nonisolated(unsafe) static var cachedReleaseDirectory: Result<String, InstallTestError>?

    /// A directory holding release builds of pasteboardd and pb; builds them if there is none.
    static func releaseDirectory() throws -> String {
        if let cached = cachedReleaseDirectory { return try cached.get() }
        let result: Result<String, InstallTestError>
        do { result = .success(try findOrBuildRelease()) } catch { result = .failure(error) }
        cachedReleaseDirectory = result
        return try result.get()
    }

    static func findOrBuildRelease() throws(InstallTestError) -> String {
        let environment = ProcessInfo.processInfo.environment
        let hasPrograms = { (directory: String) in
            ["pasteboardd", "pb"].allSatisfy { FileManager.default.isExecutableFile(atPath: directory + "/" + $0) }
        }
        if let directory = environment["PASTEBOARD_RELEASE_DIR"], !directory.isEmpty {
            guard hasPrograms(directory) else { throw InstallTestError("PASTEBOARD_RELEASE_DIR=\(directory) has no pasteboardd and pb") }
            return directory
        }
        if hasPrograms(root + "/.build/release") { return root + "/.build/release" }
        // The Makefile's own release flags, so the test builds what `make install` would.
        do {
            let scratch = root + "/.build/install-tests"
            let flags = try releaseFlags()
            // As `make release` does: a tree built with other flags is built again whole (swift build would keep
            // objects compiled with the old ones); the flags are kept before building, so a failed build resumes.
            let stamp = scratch + "/release-flags"
            if (try? String(contentsOfFile: stamp, encoding: .utf8)) != flags, FileManager.default.fileExists(atPath: scratch) {
                try FileManager.default.removeItem(atPath: scratch)
            }
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            try flags.write(toFile: stamp, atomically: true, encoding: .utf8)
            let arguments = ["build"] + flags.split(whereSeparator: \.isWhitespace).map(String.init)
                + ["--package-path", root, "--scratch-path", scratch]
            let build = try Runner(environment: makeEnvironment).run("swift", arguments, timeout: 1500)
            guard build.status == 0 else {
                throw InstallTestError("swift \(arguments.joined(separator: " ")) failed: \(build.text.suffix(2000)) \(build.stderr.suffix(2000))")
            }
            let directory = scratch + "/release"
            guard hasPrograms(directory) else { throw InstallTestError("no release programs in \(directory)") }
            return directory
        } catch let error as InstallTestError {
            throw error
        } catch {
            throw InstallTestError("building release: \(error)")
        }
    }
}

extension InstallTests {
    /// The environment for running make (and the build) from a test. make takes variables from the environment:
    /// none of the caller's may leak into the test, nor the jobserver of a `make test` this runs under.
    static var makeEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for name in ["MAKEFLAGS", "MFLAGS", "MAKELEVEL", "DESTDIR", "PREFIX", "PB_SKIP_BUILD", "RELEASE_DIR",
                     "INSTALL_STRIP", "DEB_DIR", "DEB_COMPRESSION", "MAINTAINER", "DEBFULLNAME", "DEBEMAIL",
                     "bindir", "datadir", "mandir", "systemduserunitdir", "zshcompletiondir", "prefix"] {
            environment.removeValue(forKey: name)
        }
        return environment
    }

    /// The Makefile's `RELEASE_FLAGS` (`make release-flags`), as `make release` builds with them.
    static func releaseFlags() throws(InstallTestError) -> String {
        let flags: RunResult
        do {
            flags = try Runner(environment: makeEnvironment).run("make", ["-s", "-C", root, "--no-print-directory", "release-flags"])
        } catch {
            throw InstallTestError("make release-flags: \(error)")
        }
        let text = flags.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard flags.status == 0, !text.isEmpty else { throw InstallTestError("make release-flags: \(flags.stderr)") }
        return text
    }
}

struct InstallTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
