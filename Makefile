# pasteboard — the two set-up commands are `make run` and `make test` (see README.md).
# Both install the Debian packages they need (apt-get, as root or through sudo), then build.

SHELL := /bin/bash
PREFIX ?= /usr/local
SWIFT ?= swift
# A static standard library keeps pb's start-up near xsel's and the binaries free of the toolchain.
# --disable-local-rpath: nothing is loaded from beside the programs, so the loader need not look there
# (about 20 failed opens at every start). -L link: the static Swift runtime's -lstdc++ finds link/libstdc++.so,
# a linker script naming libstdc++.a, before the compiler's libstdc++.so: the C++ the runtime uses is linked in
# (+70-90 kB) and libstdc++.so.6 is not loaded at every start (1.3 ms in a C program linked like pb; with the
# buffer fix of the same day `pb paste` went from 1.38x to 1.08x xclip -o: docs/performance.md). (-Xswiftc -L, not
# -Xlinker -L: the linker searches directories in the order given, and -Xlinker options come after the toolchain's.)
# Code layout: each function in its own section, and lld (shipped with the Swift toolchain) lays out first, side by
# side, the functions link/order.txt lists — those an idle daemon and pb's start-up run (link/make-order writes it;
# `make order`). The kernel maps 64-128 KiB around each code fault, so code that runs, packed together, maps less of
# what does not: the idle daemon's PSS 7.0 -> 5.1 MiB side by side, `pb paste` 14 faults fewer (docs/performance.md
# "Code layout"). A stale list costs only layout. Without ld.lld beside swift the link is the toolchain's default,
# unordered. A release tree built with other flags is built again whole (`release` below).
# What the loader reads and writes at every start: the programs export no symbols (link/programs.map: the static
# standard library's link arguments say -export-dynamic, which put 4,700 names of ours in .dynsym/.dynstr, 330 kB
# that every start maps), and with glibc 2.36 or later (DT_RELR) their 23,800 relative relocations are packed
# (-z pack-relative-relocs: .rela.dyn 571 kB -> .relr.dyn 5 kB); together the idle daemon's PSS 6.7-6.9 -> 5.8-5.9 MiB
# side by side (docs/performance.md "Code layout"). An older glibc cannot load DT_RELR, so it is used only where
# the build's glibc can (the programs run where they are built; a package built so depends on that glibc).
SWIFT_BIN_DIR := $(dir $(realpath $(shell command -v $(SWIFT))))
GLIBC_HAS_RELR := $(shell getconf GNU_LIBC_VERSION 2>/dev/null | awk '{ split($$2, v, "."); if (v[1] > 2 || (v[1] == 2 && v[2] >= 36)) print "yes" }')
LAYOUT_FLAGS := $(if $(wildcard $(SWIFT_BIN_DIR)ld.lld),-Xswiftc -use-ld=lld -Xswiftc -Xfrontend -Xswiftc -function-sections \
	-Xcc -ffunction-sections -Xlinker --symbol-ordering-file=$(CURDIR)/link/order.txt -Xlinker --no-warn-symbol-ordering \
	-Xlinker --version-script=$(CURDIR)/link/programs.map $(if $(GLIBC_HAS_RELR),-Xlinker -z -Xlinker pack-relative-relocs))
RELEASE_FLAGS := -c release -Xswiftc -static-stdlib --disable-local-rpath -Xswiftc -L$(CURDIR)/link $(LAYOUT_FLAGS)
RELEASE_DIR = $(shell $(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)

# Packages: building needs the X headers, libwayland-client's (the Wayland door) and the image libraries' headers (libspng, zlib and libdeflate,
# TurboJPEG, libwebp, libtiff, giflib: the types of the functions CImageShims opens on first use); tests and benchmarks need a server and real peers (PIL decodes what the daemon serves).
BUILD_PACKAGES := libx11-dev libx11-xcb-dev libxfixes-dev libxres-dev libwayland-dev pkg-config libspng-dev zlib1g-dev libdeflate-dev libturbojpeg0-dev libwebp-dev libtiff-dev libgif-dev
RUN_PACKAGES := xvfb
# desktop-file-utils checks the autostart entry (InstallTests: 1 package, 91 kB); lintian checks the .deb
# (InstallTests: 129 packages, mostly Perl's, 35 s to fetch and install); python3-pil decodes the
# pictures the daemon serves. The second line: the menus `pb history pick` is tested with (rofi, dmenu from
# suckless-tools, fzf), xdotool, which types into them, and xterm, the terminal `pb copy --osc52` copies
# through: 7 packages, 2.6 MB to fetch, 7.5 MB installed, 14 s to install; and emacs-gtk, the Emacs whose
# gui-get-selection EmacsTests drives (10 packages, 47.5 MB to fetch, 168 MB installed beside the GTK 3 that
# gir1.2-gtk-3.0 brings; emacs-lucid would be 47.7 MB and 169 MB, with Xaw3d besides). The last line: the applications
# RealApplicationTests paste into (python3-uno drives Writer): 77 packages, 276 MiB to fetch, 72 s to fetch
# and install (docs/testing.md). The SSH line: the real OpenSSH client and server RemoteTests forward the pasteboard
# through (sshd runs per connection, started by the tests in a network namespace of their own: iproute2's ip).
# The Wayland line: a headless sway (wlroots: wlr-data-control) run as nobody, wl-clipboard as the other Wayland
# client, wtype (a virtual keyboard: the key press a GTK application on Wayland copies on, since a copy needs an
# input event's serial), and wayland-scanner, which checks the committed protocol glue (protocols/wayland).
TEST_PACKAGES := xvfb xserver-xephyr xclip xsel x11-utils python3-xlib python3-gi gir1.2-gtk-3.0 python3-pyqt5 python3-tk systemd man-db groff-base desktop-file-utils python3-pil lintian \
	rofi suckless-tools fzf xdotool xterm emacs-gtk \
	chromium firefox-esr libreoffice-writer python3-uno \
	openssh-client openssh-server iproute2 \
	sway wl-clipboard wtype libwayland-bin xwayland x11-xserver-utils
# The benchmarks' anchors besides: python3-lz4 and python3-brotli are the compressors Debian's xpra recommends
# (installed with it unless --no-install-recommends, as here), which it compresses clipboard contents with (else
# zlib, and its "zlib is the only compressor enabled" warning): bench/displays.py measures xpra as apt installs it.
BENCH_PACKAGES := $(TEST_PACKAGES) unrtf pandoc strace hyperfine copyq parcellite clipit imagemagick xpra python3-lz4 python3-brotli

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all build release release-flags order run test bench stress deps-build deps-run deps-test deps-bench clean install uninstall wayland-protocols

all: build

# Installs only what is missing; apt-get update runs once, when something is.
define install_packages
	@missing=""; for p in $(1); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
endef

deps-build:
	$(call install_packages,$(BUILD_PACKAGES))
deps-run: deps-build
	$(call install_packages,$(RUN_PACKAGES))
deps-test: deps-build
	$(call install_packages,$(TEST_PACKAGES))
deps-bench: deps-build
	$(call install_packages,$(BENCH_PACKAGES))

build: deps-build
	$(SWIFT) build

# swift build does not recompile objects when only the -Xswiftc/-Xcc flags change (a tree built before the layout
# flags kept objects without function sections, and lld could order little of them): the flags a release tree is
# built with are kept in it (before building, so a failed build resumes), and a tree built with others is removed
# first and built again whole.
release: deps-build
	@dir="$(RELEASE_DIR)"; \
	if [ -n "$$dir" ] && [ -d "$$dir" ] && [ "$$(cat "$$dir/.release-flags" 2>/dev/null)" != '$(RELEASE_FLAGS)' ]; then \
	  echo "release flags changed since $$dir was built: building it again whole"; rm -rf "$$(realpath "$$dir")"; \
	fi; \
	mkdir -p "$$dir" && echo '$(RELEASE_FLAGS)' >"$$dir/.release-flags"
	$(SWIFT) build $(RELEASE_FLAGS)

# The flags of `make release`, for building elsewhere (docs/performance.md "How to run it").
release-flags:
	@echo '$(RELEASE_FLAGS)'

# Rewrites link/order.txt from the programs as built (valgrind's callgrind under a private Xvfb and a headless sway), then relinks.
order: deps-test release
	$(call install_packages,valgrind)
	for p in pasteboardd pb; do rm -f "$(RELEASE_DIR)/$$p"; \
	  $(SWIFT) build $(RELEASE_FLAGS) --product $$p -Xlinker -Map="$(RELEASE_DIR)/$$p.map" || exit 1; done
	link/make-order "$(RELEASE_DIR)"
	rm -f "$(RELEASE_DIR)/pb" "$(RELEASE_DIR)/pasteboardd"
	$(SWIFT) build $(RELEASE_FLAGS)

# Runs pasteboardd in the foreground on $DISPLAY, or on a private Xvfb when there is no display.
run: deps-run release
	@bin="$(RELEASE_DIR)"; \
	if [ -n "$$DISPLAY" ]; then \
	  echo "pasteboardd on DISPLAY=$$DISPLAY (Ctrl-C to stop)"; exec "$$bin/pasteboardd"; \
	elif [ -n "$$WAYLAND_DISPLAY" ]; then \
	  echo "pasteboardd on WAYLAND_DISPLAY=$$WAYLAND_DISPLAY alone, no X display (Ctrl-C to stop)"; exec "$$bin/pasteboardd"; \
	else \
	  exec 3< <(Xvfb -displayfd 1 -nolisten tcp -noreset 2>/dev/null & echo "pid $$!"); \
	  read -r _ xpid <&3; read -r display <&3; \
	  trap 'kill $$xpid 2>/dev/null' EXIT; \
	  echo "no DISPLAY: started a private Xvfb (pid $$xpid) on DISPLAY=:$$display"; \
	  echo "use it from another shell with: export DISPLAY=:$$display"; \
	  DISPLAY=:$$display "$$bin/pasteboardd"; \
	fi

# Every test: pure unit tests and the end-to-end suites against real Xvfb servers and peers.
test: deps-test deps-deb
	/usr/bin/python3 Tests/Tools/check-imports.py
	/usr/bin/python3 Tests/Tools/check-licence-headers.py
	Tests/Tools/check-wayland-glue.sh
	$(SWIFT) build --build-tests
	@# Parallel XCTest prints no summary of its own and reports skipped tests as passed: the summary counts
	@# from the xunit report and the skip log the tests write (Tests/Tools/summary.py), and fails on a failure.
	@rm -f .build/xunit.xml .build/skipped.log; status=0; \
	PB_TEST_SKIP_LOG="$(CURDIR)/.build/skipped.log" $(SWIFT) test --skip-build --parallel --num-workers 2 \
	  --disable-swift-testing --xunit-output .build/xunit.xml || status=$$?; \
	/usr/bin/python3 Tests/Tools/summary.py .build/xunit.xml .build/skipped.log || status=1; \
	exit $$status

bench: deps-bench release
	PB_BIN_DIR="$(RELEASE_DIR)" bench/run.sh
	bench/convert.sh "$(RELEASE_DIR)/pb" | tee bench/results/convert.md
	bench/images.sh "$(RELEASE_DIR)" | tee bench/results/images.md
	bench/displays.py "$(RELEASE_DIR)" | tee bench/results/displays.md
	bench/peers.py "$(RELEASE_DIR)" | tee bench/results/peers.md
	bench/remote.py "$(RELEASE_DIR)" | tee bench/results/remote.md
	bench/wayland.py "$(RELEASE_DIR)" | tee bench/results/wayland.md

# The reliability suite (stress/run.py): load, faults and hostile peers against the release build on
# private Xvfb servers, about 6 minutes; the report goes to stress/results/latest.md. STRESS_ARGS passes
# options and scenario names (e.g. STRESS_ARGS="--duration 10 load").
stress: deps-test release
	/usr/bin/python3 stress/run.py --bin "$(RELEASE_DIR)" $(STRESS_ARGS)

# Remakes the Wayland client glue (Sources/CWaylandShims/generated) from protocols/wayland's definitions.
wayland-protocols:
	$(call install_packages,libwayland-bin)
	protocols/wayland/generate.sh

clean:
	rm -rf .build

# --- Install, uninstall, Debian package ---------------------------------------------------------------
# `make install` puts the release build, pbcopy and pbpaste (links to pb), the systemd user units (service
# and socket), the XDG autostart entry, the man pages and the completions under PREFIX (default /usr/local; PREFIX=~/.local needs no root);
# DESTDIR stages the tree elsewhere. `make uninstall` removes exactly what INSTALL_MANIFEST lists,
# the one list both use. PB_SKIP_BUILD=1 installs what RELEASE_DIR already holds instead of building.
# Tests/EndToEndTests/InstallTests.swift checks the installed tree and the package.

.PHONY: deb deps-deb test-package deps-package

# The version, written in one place: VERSION (the programs get it through Plugins/VersionStamp).
VERSION := $(shell cat $(CURDIR)/VERSION)

# make does not expand ~: PREFIX=~/.local works however the shell passed it.
prefix = $(patsubst ~%,$(HOME)%,$(PREFIX))
bindir = $(prefix)/bin
datadir = $(prefix)/share
mandir = $(datadir)/man
# Where `systemctl --user` looks: ~/.local/share/systemd/user for a prefix in $HOME, else
# PREFIX/lib/systemd/user (/usr/lib/systemd/user, /usr/local/lib/systemd/user).
systemduserunitdir = $(if $(filter $(HOME)/%,$(abspath $(prefix))/),$(datadir)/systemd/user,$(prefix)/lib/systemd/user)
# /etc for PREFIX=/usr (the .deb), PREFIX/etc otherwise, as GNU's sysconfdir.
sysconfdir ?= $(if $(filter /usr,$(prefix)),/etc,$(prefix)/etc)
# Where sessions look for autostart entries: ~/.config/autostart for a prefix in $HOME, else
# sysconfdir/xdg/autostart (/etc/xdg/autostart for PREFIX=/usr; for /usr/local, /usr/local/etc/xdg must be
# in $XDG_CONFIG_DIRS, or install with sysconfdir=/etc).
xdgautostartdir = $(if $(filter $(HOME)/%,$(abspath $(prefix))/),$(HOME)/.config/autostart,$(sysconfdir)/xdg/autostart)
# zsh's directory for completions a package or `make install` adds (the .deb: Debian's vendor-completions).
zshcompletiondir ?= $(datadir)/zsh/site-functions
# The programs to install; .build/release when swift is not on PATH (as under sudo).
INSTALL_FROM = $(or $(RELEASE_DIR),.build/release)
# install -s strips the programs (the Debian package does); empty keeps their symbols.
INSTALL_STRIP ?=

# kind:installed path:source. bin: a program from INSTALL_FROM; link: a symbolic link whose target is
# source; data: a file of this tree, with @BINDIR@ and @VERSION@ replaced.
INSTALL_MANIFEST = \
	bin:$(bindir)/pasteboardd:pasteboardd \
	bin:$(bindir)/pb:pb \
	link:$(bindir)/pbcopy:pb \
	link:$(bindir)/pbpaste:pb \
	data:$(systemduserunitdir)/pasteboardd.service:systemd/pasteboardd.service \
	data:$(systemduserunitdir)/pasteboardd.socket:systemd/pasteboardd.socket \
	data:$(xdgautostartdir)/pasteboardd.desktop:desktop/pasteboardd.desktop \
	data:$(mandir)/man1/pb.1:man/pb.1 \
	data:$(mandir)/man1/pbcopy.1:man/pbcopy.1 \
	data:$(mandir)/man1/pbpaste.1:man/pbpaste.1 \
	data:$(mandir)/man1/pasteboardd.1:man/pasteboardd.1 \
	data:$(mandir)/man5/pasteboardd.conf.5:man/pasteboardd.conf.5 \
	data:$(datadir)/bash-completion/completions/pb:completions/pb.bash \
	link:$(datadir)/bash-completion/completions/pbcopy:pb \
	link:$(datadir)/bash-completion/completions/pbpaste:pb \
	data:$(zshcompletiondir)/_pb:completions/_pb \
	data:$(datadir)/fish/vendor_completions.d/pb.fish:completions/pb.fish \
	data:$(datadir)/fish/vendor_completions.d/pbcopy.fish:completions/pbcopy.fish \
	data:$(datadir)/fish/vendor_completions.d/pbpaste.fish:completions/pbpaste.fish

install: $(if $(filter 1 yes true,$(PB_SKIP_BUILD)),,release)
	@set -e; bin="$(INSTALL_FROM)"; \
	for program in pasteboardd pb; do \
	  [ -x "$$bin/$$program" ] || { echo "no $$program in $$bin: build it with 'make release'" >&2; exit 1; }; \
	done; \
	for entry in $(INSTALL_MANIFEST); do \
	  IFS=: read -r kind path source <<< "$$entry"; \
	  target="$(DESTDIR)$$path"; \
	  mkdir -p "$$(dirname "$$target")"; \
	  case $$kind in \
	    bin) install -m 0755 $(INSTALL_STRIP) "$$bin/$$source" "$$target" ;; \
	    link) ln -sfn "$$source" "$$target" ;; \
	    data) sed -e 's|@BINDIR@|$(bindir)|g' -e 's|@VERSION@|$(VERSION)|g' "$$source" > "$$target.new"; \
	          chmod 0644 "$$target.new"; mv -f "$$target.new" "$$target" ;; \
	  esac; \
	  echo "installed $$target"; \
	done

uninstall:
	@for entry in $(INSTALL_MANIFEST); do \
	  IFS=: read -r kind path source <<< "$$entry"; \
	  target="$(DESTDIR)$$path"; \
	  if [ -e "$$target" ] || [ -L "$$target" ]; then rm -f "$$target" && echo "removed $$target"; fi; \
	done

# The Debian package, as a distribution would accept it (lintian: no error, no warning; InstallTests runs it):
# a stripped install with PREFIX=/usr staged in DEB_DIR, with Debian's places for what Debian places itself
# (zsh completions in vendor-completions), the programs stripped as dh_strip does, man pages and the changelog
# gzipped, DEBIAN/md5sums for debsums, the copyright file
# (debian/copyright, machine-readable) and the changelog made from CHANGELOG.md (debian/make-changelog).
# DEBIAN/control comes from debian/control through dpkg-gencontrol: Depends is ${shlibs:Depends}, which
# dpkg-shlibdeps computes from what the programs link (libX11, libX11-xcb, libxcb, libXfixes, libgcc_s for the static Swift runtime,
# libm, libc; libstdc++ is linked in statically) and procps; the image libraries, opened on first use by
# SONAME, are Recommends, ${shlibs:Recommends} from a probe linked against the functions used (debian/control
# says why). xz for the members: lintian and older dpkg reject zstd.
# MAINTAINER="Name <mail>" signs the package and its changelog; without it DEBFULLNAME and DEBEMAIL (as dch
# reads them) when both are set, else debian/control's Maintainer.
DEB_DIR ?= build
DEB_ARCH = $(shell dpkg --print-architecture)
DEB_FILE = $(DEB_DIR)/pasteboard_$(VERSION)_$(DEB_ARCH).deb
DEB_DEFAULT_MAINTAINER := $(shell sed -n 's/^Maintainer: //p' $(CURDIR)/debian/control)
MAINTAINER ?= $(if $(and $(DEBFULLNAME),$(DEBEMAIL)),$(DEBFULLNAME) <$(DEBEMAIL)>,$(DEB_DEFAULT_MAINTAINER))
DEB_COMPRESSION ?= -Zxz
# The probe that stands for the image libraries CImageShims opens and libXRes, which CX11Shims opens
# (debian/recommends-probe.c): compiled by the toolchain's clang (the header uses clang's nullability), linked by
# pkg-config's flags and giflib's -lgif.
DEB_CLANG = $(or $(wildcard $(SWIFT_BIN_DIR)clang),clang)
DEB_IMAGE_PC := spng zlib libdeflate libturbojpeg libwebp libtiff-4 xres
# What building the package needs beyond building the programs: dpkg-shlibdeps and dpkg-gencontrol, xz,
# python3 for debian/make-changelog.
DEB_PACKAGES := dpkg-dev xz-utils python3

deps-deb:
	$(call install_packages,$(DEB_PACKAGES))

deb: deps-deb $(if $(filter 1 yes true,$(PB_SKIP_BUILD)),,release)
	@set -e; stage="$(abspath $(DEB_DIR))/pasteboard_$(VERSION)_$(DEB_ARCH)"; work="$$stage.work"; \
	rm -rf "$$stage" "$$work"; mkdir -p "$$stage/DEBIAN" "$$work/debian"; \
	$(MAKE) --no-print-directory install PB_SKIP_BUILD=1 RELEASE_DIR="$(abspath $(INSTALL_FROM))" \
	  PREFIX=/usr DESTDIR="$$stage" INSTALL_STRIP=-s zshcompletiondir=/usr/share/zsh/vendor-completions >/dev/null; \
	strip --remove-section=.comment --remove-section=.note "$$stage/usr/bin/pasteboardd" "$$stage/usr/bin/pb"; \
	gzip -9n "$$stage"/usr/share/man/man*/*; \
	doc="$$stage/usr/share/doc/pasteboard"; mkdir -p "$$doc"; \
	install -m 0644 debian/copyright "$$doc/copyright"; install -m 0644 NOTICE "$$doc/NOTICE"; \
	debian/make-changelog CHANGELOG.md "$(VERSION)" "$(MAINTAINER)" > "$$work/changelog"; \
	gzip -9n < "$$work/changelog" > "$$doc/changelog.gz"; chmod 0644 "$$doc/changelog.gz"; \
	cp debian/control "$$work/debian/control"; \
	$(DEB_CLANG) -O0 -ISources/CImageShims/include $$(pkg-config --cflags $(DEB_IMAGE_PC)) -o "$$work/recommends-probe" \
	  debian/recommends-probe.c $$(pkg-config --libs $(DEB_IMAGE_PC)) -lgif; \
	(cd "$$work" && dpkg-shlibdeps -Tsubstvars -dDepends -e"$$stage/usr/bin/pasteboardd" -e"$$stage/usr/bin/pb" \
	  -dRecommends -e"$$work/recommends-probe") 2> >(grep -v 'should already be installed in their package' >&2); \
	(cd "$$work" && dpkg-gencontrol -ppasteboard -lchangelog -Tsubstvars -ffiles -P"$$stage" -v"$(VERSION)" \
	  -DMaintainer="$(MAINTAINER)"); \
	conffiles=$$(cd "$$stage" && find etc -type f 2>/dev/null | sed 's|^|/|'); \
	if [ -n "$$conffiles" ]; then echo "$$conffiles" > "$$stage/DEBIAN/conffiles"; fi; \
	(cd "$$stage" && find usr -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum) > "$$stage/DEBIAN/md5sums"; \
	dpkg-deb --build --root-owner-group $(DEB_COMPRESSION) "$$stage" "$(DEB_FILE)"; \
	rm -rf "$$stage" "$$work"

# The package on a clean system (Tests/Package/test-package.sh, docs/testing.md): `make deb`, then a minimal
# Debian bookworm root made by debootstrap from the archive this machine's apt uses, the package installed
# there with apt-get (its Depends and Recommends resolved for real), run (Xvfb, pb copy/paste, xclip, pictures)
# and removed. The root is cached in /var/cache/pasteboard-test (PB_PACKAGE_TEST_CACHE=DIR elsewhere), keyed by
# what it is made of: about 2 minutes to make once, seconds after. As root (debootstrap, chroot).
PACKAGE_TEST_PACKAGES := debootstrap util-linux python3-pil

deps-package:
	$(call install_packages,$(PACKAGE_TEST_PACKAGES))

test-package: deps-package deb
	$(SUDO) $(if $(PB_PACKAGE_TEST_CACHE),env PB_PACKAGE_TEST_CACHE=$(PB_PACKAGE_TEST_CACHE)) Tests/Package/test-package.sh $(DEB_FILE)
