# pasteboard — the two set-up commands are `make run` and `make test` (see README.md).
# Both install the Debian packages they need (apt-get, as root or through sudo), then build.

SHELL := /bin/bash
PREFIX ?= /usr/local
SWIFT ?= swift
# A static standard library keeps pb's start-up near xsel's and the binaries free of the toolchain.
RELEASE_FLAGS := -c release -Xswiftc -static-stdlib
RELEASE_DIR = $(shell $(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)

# Packages: building needs the X headers; tests and benchmarks need a server and real peers.
BUILD_PACKAGES := libx11-dev libxfixes-dev pkg-config
RUN_PACKAGES := xvfb
TEST_PACKAGES := xvfb xclip xsel x11-utils python3-xlib python3-gi gir1.2-gtk-3.0 python3-pyqt5 python3-tk
BENCH_PACKAGES := $(TEST_PACKAGES) unrtf pandoc strace hyperfine

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: all build release run test bench deps-build deps-run deps-test deps-bench clean install uninstall

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

release: deps-build
	$(SWIFT) build $(RELEASE_FLAGS)

# Runs pasteboardd in the foreground on $DISPLAY, or on a private Xvfb when there is no display.
run: deps-run release
	@bin="$(RELEASE_DIR)"; \
	if [ -n "$$DISPLAY" ]; then \
	  echo "pasteboardd on DISPLAY=$$DISPLAY (Ctrl-C to stop)"; exec "$$bin/pasteboardd"; \
	else \
	  exec 3< <(Xvfb -displayfd 1 -nolisten tcp 2>/dev/null & echo "pid $$!"); \
	  read -r _ xpid <&3; read -r display <&3; \
	  trap 'kill $$xpid 2>/dev/null' EXIT; \
	  echo "no DISPLAY: started a private Xvfb (pid $$xpid) on DISPLAY=:$$display"; \
	  echo "use it from another shell with: export DISPLAY=:$$display"; \
	  DISPLAY=:$$display "$$bin/pasteboardd"; \
	fi

# Every test: pure unit tests and the end-to-end suites against real Xvfb servers and peers.
test: deps-test
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --parallel --num-workers 2

bench: deps-bench release
	PB_BIN_DIR="$(RELEASE_DIR)" bench/run.sh

clean:
	rm -rf .build
