#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make test-package: the .deb on a clean Debian 12 (bookworm), as a user who installs it would get it.
#
#   Tests/Package/test-package.sh build/pasteboard_<version>_<arch>.deb     (as root: debootstrap, chroot)
#
# A minimal bookworm root (debootstrap --variant=minbase, from the archive this machine's apt uses: the
# sources `apt-get indextargets` lists for bookworm*), with only what the test drives installed beside it
# (Xvfb, xclip, systemd for systemctl and systemd-analyze, man-db for the units' man: links) and a user, is made once and cached in
# $PB_PACKAGE_TEST_CACHE (default /var/cache/pasteboard-test), keyed by what it is made of: the suite, those
# sources, the tools, debootstrap's version and this recipe. Each run copies it to a scratch directory under
# /var/tmp and in that copy:
#
#   1. installs the package with `apt-get install ./pasteboard_*.deb`, so its Depends and Recommends are
#      resolved from the archive for real;
#   2. runs `pasteboardd --version`, `pb --help`, reads the man pages' version and enables the systemd user
#      units (`systemctl --user enable pasteboardd`), as the user;
#   3. starts an Xvfb of the root and pasteboardd on it (awaited through sd_notify, not by sleeping), copies
#      text with `pb copy` and reads it back with `pb paste` and `xclip -o`;
#   4. converts a picture with `pb convert` and has pasteboardd serve a PNG copy as WebP, JPEG and TIFF
#      (the image libraries are opened on first use: they must have come with the package), judged by
#      pixels with PIL on this machine;
#   5. removes the package (`apt-get remove`: only its conffile stays), then purges it with the
#      dependencies it pulled in (`apt-get purge --autoremove`): the root's files are again those before.
#
# Every process the test starts is stopped by its PID; mounts (/proc) live in private mount namespaces that
# end with the command they were made for. The last line is "N passed, M failed"; the exit status is 1 when
# a check failed, 2 when the root could not be made or the package not installed.
set -uo pipefail

DEB=${1:?usage: test-package.sh PACKAGE.deb}
DEB=$(realpath "$DEB")
SUITE=bookworm
# Bump when the recipe of the cached root changes.
RECIPE=1
TOOLS="xvfb xclip systemd man-db"
TEST_UID=1000
CACHE=${PB_PACKAGE_TEST_CACHE:-/var/cache/pasteboard-test}
# Debian's python3, which has PIL (python3-pil), whatever python3 comes first on PATH.
PYTHON=/usr/bin/python3

passed=0 failed=0
pass() { passed=$((passed + 1)); echo "ok      $1"; }
fail() { failed=$((failed + 1)); echo "FAILED  $1"; [ -n "${2:-}" ] && sed 's/^/        /' <<< "$2"; return 0; }
# check NAME COMMAND...: passes when COMMAND exits 0; its output is shown when it does not.
check() { local name=$1 out; shift; if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "$out"; fi; }
# expect NAME EXPECTED ACTUAL
expect() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "expected: $(printf %q "$2")"$'\n'"got:      $(printf %q "$3")"; fi; }
die() { echo "test-package: $*" >&2; echo "$passed passed, $((failed + 1)) failed"; exit 2; }
seconds() { echo $(( $(date +%s) - $1 )); }

[ "$(id -u)" = 0 ] || die "needs root (debootstrap and chroot): run it through make test-package"
[ -f "$DEB" ] || die "no package at $DEB"
for tool in debootstrap unshare chroot flock dpkg-deb apt-get $PYTHON; do
  command -v "$tool" >/dev/null || die "$tool is not installed (make test-package installs what it needs)"
done
VERSION=$(dpkg-deb -f "$DEB" Version)

# --- The archive: the sources this machine's apt uses for the suite -----------------------------------
# "URI SUITE COMPONENT", one line per index apt fetches (deb822 and one-line sources alike).
SOURCES=$(apt-get indextargets --format '$(SITE) $(RELEASE) $(COMPONENT)' 'Created-By: Packages' \
  | awk -v suite="$SUITE" '$2 == suite || index($2, suite "-") == 1' | sort -u)
MIRROR=$(awk -v suite="$SUITE" '$2 == suite { print $1; exit }' <<< "$SOURCES")
[ -n "$MIRROR" ] || die "this machine's apt has no source for $SUITE (apt-get indextargets; run apt-get update)"
# Settings of this machine's apt that reaching the same archive needs (a proxy, an archive whose Release
# files are past Valid-Until), for the root's apt.
APT_SETTINGS=$(apt-config dump | grep -E '^Acquire::(Check-Valid-Until|Check-Date|https?::Proxy|ftp::Proxy) ' || true)

KEY=$(printf '%s\n' "$RECIPE" "$SUITE" "$SOURCES" "$APT_SETTINGS" "$TOOLS" "$(dpkg --print-architecture)" \
  "$(dpkg-query -W -f='${Version}' debootstrap)" | sha256sum | cut -c1-16)
CACHED="$CACHE/$SUITE-$KEY"
echo "package: $DEB (version $VERSION)"
echo "archive: $MIRROR ($SUITE; $(wc -l <<< "$SOURCES") indexes as this machine's apt)"
echo "cached root: $CACHED"

# Runs a command in ROOT as root, with /proc mounted in a mount namespace of its own.
in_root() {
  local root=$1; shift
  unshare --mount --propagation private sh -c 'r=$1; shift; mount -t proc proc "$r/proc" && exec chroot "$r" "$@"' sh "$root" "$@"
}
# ARGV: the command line that runs COMMAND... in ROOT as the test user, with a login-like environment. One
# chain of execs: started in the background, $! is the program's own PID. Its own network namespace too: X
# clients try the abstract socket @/tmp/.X11-unix/X<n> first, which lives in the network namespace, and would
# reach this machine's X servers (other test suites') instead of the root's; in an empty namespace they reach
# the root's Xvfb by its socket file, which the chroot confines. The programs need no other network.
user_argv() {
  local root=$1; shift
  ARGV=(unshare --mount --net --propagation private sh -c 'r=$1; shift; mount -t proc proc "$r/proc" && exec chroot --userspec=tester:tester "$r" "$@"'
    sh "$root" env -i HOME=/home/tester USER=tester LOGNAME=tester PATH=/usr/local/bin:/usr/bin:/bin
    XDG_RUNTIME_DIR=/run/user/$TEST_UID LANG=C.UTF-8 ${DISPLAY_IN_ROOT:+DISPLAY=$DISPLAY_IN_ROOT} "$@")
}
as_user() { user_argv "$@"; "${ARGV[@]}"; }

# --- The cached root ---------------------------------------------------------------------------------------
make_root() {
  local new="$CACHED/root.new" started; started=$(date +%s)
  rm -rf --one-file-system "$new"; mkdir -p "$new"
  echo "making the root (once for this key): debootstrap $SUITE from $MIRROR"
  debootstrap --variant=minbase --keyring=/usr/share/keyrings/debian-archive-keyring.gpg "$SUITE" "$new" "$MIRROR" \
    > "$CACHE/debootstrap.log" 2>&1 || { tail -20 "$CACHE/debootstrap.log" >&2; return 1; }
  awk '{ print "deb " $1 " " $2 " " $3 }' <<< "$SOURCES" > "$new/etc/apt/sources.list"
  printf '%s\n' "$APT_SETTINGS" > "$new/etc/apt/apt.conf.d/99pasteboard-test-host"
  cp /etc/resolv.conf "$new/etc/resolv.conf"
  in_root "$new" env DEBIAN_FRONTEND=noninteractive sh -c \
    "apt-get update -qq && apt-get install -y -qq --no-install-recommends $TOOLS >/dev/null && apt-get clean" \
    > "$CACHE/tools.log" 2>&1 || { tail -20 "$CACHE/tools.log" >&2; return 1; }
  in_root "$new" useradd --create-home --uid "$TEST_UID" --shell /bin/sh tester || return 1
  date +%s > "$new/.pasteboard-test-lists"
  mv "$new" "$CACHED/root"
  echo "made the root in $(seconds "$started") s ($(du -sh "$CACHED/root" | cut -f1))"
}

mkdir -p "$CACHED"
exec 9> "$CACHED/lock"
flock 9
if [ ! -d "$CACHED/root" ]; then
  # Roots of other keys (an older recipe, other sources) are not used again: removed unless a run holds them.
  for other in "$CACHE/$SUITE"-*; do
    [ "$other" = "$CACHED" ] || [ ! -d "$other" ] && continue
    (flock -n 8 && rm -rf --one-file-system "$other") 8> "$other/lock" && echo "removed the root of another key: $other"
  done
  make_root || die "could not make the root"
fi
# Package lists older than a day are fetched again (in the cache), so the archive's current versions resolve.
if [ $(( $(date +%s) - $(cat "$CACHED/root/.pasteboard-test-lists" 2>/dev/null || echo 0) )) -gt 86400 ]; then
  in_root "$CACHED/root" apt-get update -qq >/dev/null 2>&1 && date +%s > "$CACHED/root/.pasteboard-test-lists" \
    || die "apt-get update in the cached root failed"
fi

# --- A scratch copy of it ----------------------------------------------------------------------------------
started=$(date +%s)
SCRATCH=$(mktemp -d /var/tmp/pasteboard-package-test.XXXXXX)
ROOT="$SCRATCH/root"
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null; done
  if [ "$failed" != 0 ]; then
    for log in xvfb pasteboardd; do [ -s "$SCRATCH/$log.log" ] && { echo "--- $log.log"; tail -20 "$SCRATCH/$log.log"; }; done
  fi
  # PB_PACKAGE_TEST_KEEP=1 keeps the scratch root to look into.
  if [ -n "${PB_PACKAGE_TEST_KEEP:-}" ]; then echo "kept $SCRATCH"; return; fi
  # Nothing may be mounted there (the namespaces ended with their commands); --one-file-system guards it.
  if ! findmnt -rn -o TARGET | grep -q "^$SCRATCH"; then rm -rf --one-file-system "$SCRATCH"; fi
}
trap cleanup EXIT
cp -a "$CACHED/root" "$ROOT"
flock -u 9
echo "copied the root in $(seconds "$started") s"
install -d -o "$TEST_UID" -g "$TEST_UID" -m 0700 "$ROOT/run/user/$TEST_UID"

# What is in the root before: every path outside the places that change by themselves.
tree() {
  (cd "$ROOT" && find . -xdev \( -path ./proc -o -path ./dev -o -path ./tmp -o -path ./run -o -path ./home \
    -o -path ./root -o -path ./var/cache -o -path ./var/log -o -path ./var/lib/apt -o -path ./var/lib/dpkg \) -prune \
    -o -print | LC_ALL=C sort)
}
before=$(tree)
packages() { in_root "$ROOT" dpkg-query -W -f='${Package}\n' | LC_ALL=C sort; }
packages_before=$(packages)

# --- 1. Install -------------------------------------------------------------------------------------------
cp "$DEB" "$ROOT/tmp/"
name=$(basename "$DEB")
started=$(date +%s)
if out=$(in_root "$ROOT" env DEBIAN_FRONTEND=noninteractive sh -c "cd /tmp && apt-get install -y ./$name" 2>&1); then
  pass "apt-get install ./$name resolves its Depends and Recommends from the archive ($(seconds "$started") s)"
else
  fail "apt-get install ./$name" "$(tail -20 <<< "$out")"
  echo "$passed passed, $failed failed"; exit 2
fi
for field in Depends Recommends; do
  for package in $(dpkg-deb -f "$DEB" "$field" | tr ',' '\n' | awk '{ print $1 }'); do
    check "$field: $package is installed" in_root "$ROOT" dpkg-query -W -f='${Status}\n' "$package"
  done
done

# --- 2. The programs, the man pages, the units ---------------------------------------------------------------
expect "pasteboardd --version" "pasteboardd $VERSION" "$(as_user "$ROOT" pasteboardd --version 2>&1)"
expect "pb --version" "pb $VERSION" "$(as_user "$ROOT" pb --version 2>&1)"
help=$(as_user "$ROOT" pb --help 2>&1); status=$?
expect "pb --help exits 0 and starts with its usage" "0 usage: pb <command> [options]" "$status $(head -1 <<< "$help")"
expect "pbpaste -help answers as pbpaste" "usage: pbpaste" "$(as_user "$ROOT" pbpaste -help 2>&1 | head -1 | cut -c1-14)"
for page in man1/pb.1 man1/pasteboardd.1 man5/pasteboardd.conf.5; do
  check "$page carries the version" sh -c "gzip -dc '$ROOT/usr/share/man/$page.gz' | grep -q '\"pasteboard $VERSION\"'"
done
check "systemctl --user enable pasteboardd (and its socket, Also=)" as_user "$ROOT" systemctl --user enable pasteboardd
expect "both units are enabled" "enabled enabled" "$(as_user "$ROOT" systemctl --user is-enabled pasteboardd.service pasteboardd.socket 2>&1 | tr '\n' ' ' | sed 's/ $//')"
verify=$(as_user "$ROOT" systemd-analyze --user verify /usr/lib/systemd/user/pasteboardd.service \
  /usr/lib/systemd/user/pasteboardd.socket 2>&1); status=$?
expect "systemd-analyze --user verify finds nothing wrong in the installed units" "0 " "$status $verify"
check "systemctl --user disable pasteboardd" as_user "$ROOT" systemctl --user disable pasteboardd

# --- 3. pasteboardd on the root's Xvfb ------------------------------------------------------------------------
# Xvfb picks a display and says which on -displayfd once it accepts clients; it listens only on its socket
# file in the root's /tmp/.X11-unix (no TCP, no abstract socket), so it shares nothing with this machine's.
install -d -m 1777 "$ROOT/tmp/.X11-unix"
mkfifo "$SCRATCH/displayfd"
user_argv "$ROOT" Xvfb -displayfd 3 -nolisten tcp -nolisten local -noreset
"${ARGV[@]}" 3>"$SCRATCH/displayfd" 2>"$SCRATCH/xvfb.log" &
xvfb=$!; PIDS+=("$xvfb")
exec 5<"$SCRATCH/displayfd"
if read -r -t 30 display <&5 && [ -n "$display" ]; then pass "Xvfb of the root runs (display :$display)"; else
  fail "Xvfb of the root runs" "$(cat "$SCRATCH/xvfb.log")"; echo "$passed passed, $failed failed"; exit 1; fi
export DISPLAY_IN_ROOT=":$display"

# pasteboardd says READY=1 to $NOTIFY_SOCKET, a datagram socket in the root's /run that this side listens on.
notify="$ROOT/run/user/$TEST_UID/notify.sock"
exec 4< <(exec $PYTHON -c '
import socket, sys, os
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(sys.argv[1]); os.chmod(sys.argv[1], 0o666)
print("listening", flush=True); s.settimeout(30)
try:
    while b"READY=1" not in s.recv(4096).split(b"\n"): pass
    print("READY=1", flush=True)
except socket.timeout:
    print("timeout", flush=True)
' "$notify")
PIDS+=("$!")
read -r _ <&4
user_argv "$ROOT" env NOTIFY_SOCKET=/run/user/$TEST_UID/notify.sock pasteboardd
"${ARGV[@]}" 2>"$SCRATCH/pasteboardd.log" &
daemon=$!; PIDS+=("$daemon")
read -r ready <&4
if [ "$ready" = READY=1 ]; then pass "pasteboardd starts on it and says READY=1"; else
  fail "pasteboardd starts on it and says READY=1" "$(cat "$SCRATCH/pasteboardd.log")"; fi

text="naïve € 日本 — pasteboard $VERSION"
check "pb copy" as_user "$ROOT" sh -c 'printf %s "$1" | pb copy' sh "$text"
expect "pb paste gives the bytes copied" "$text" "$(as_user "$ROOT" pb paste 2>&1)"
expect "xclip -o gives the same bytes" "$text" "$(as_user "$ROOT" xclip -o -selection clipboard 2>&1)"
# Another owner: xclip in the foreground (-quiet), which says on stderr that it waits for requests once it
# owns CLIPBOARD; stopped by its PID, after which pasteboardd keeps what it offered.
printf 'from xclip' > "$ROOT/tmp/from-xclip"
mkfifo "$SCRATCH/xclip.err"
user_argv "$ROOT" xclip -i -quiet -selection clipboard /tmp/from-xclip
"${ARGV[@]}" 2>"$SCRATCH/xclip.err" >/dev/null &
xclip=$!; PIDS+=("$xclip")
exec 6<"$SCRATCH/xclip.err"
if read -r -t 10 line <&6; then pass "xclip -i owns CLIPBOARD ($line)"; else fail "xclip -i owns CLIPBOARD"; fi
expect "pb paste reads another owner's selection" "from xclip" "$(as_user "$ROOT" pb paste --timeout 5000 2>&1)"
kill -TERM "$xclip"; wait "$xclip" 2>/dev/null; exec 6<&-

# --- 4. Pictures: the image libraries opened on first use are there -------------------------------------------
home="$ROOT/home/tester"
$PYTHON -c '
import sys
from PIL import Image
picture = Image.new("RGB", (96, 64))
picture.putdata([(x * 255 // 95, y * 255 // 63, (x + y) * 255 // 158) for y in range(64) for x in range(96)])
picture.save(sys.argv[1])
' "$home/shot.png" && chown "$TEST_UID:$TEST_UID" "$home/shot.png"
# compare PICTURE KIND: PIL's decoding of PICTURE against shot.png (exact, or above 40 dB PSNR for JPEG).
compare() {
  $PYTHON - "$home/shot.png" "$@" <<'PY'
import math, sys
from PIL import Image
source, picture, kind = sys.argv[1:4]
a, b = Image.open(source).convert("RGB"), Image.open(picture)
print(b.format, b.size)
b = b.convert("RGB")
assert a.size == b.size, f"{b.size} is not {a.size}"
pa, pb = a.tobytes(), b.tobytes()
if kind == "exact":
    assert pa == pb, "the pixels differ"
else:
    mse = sum((x - y) ** 2 for x, y in zip(pa, pb)) / len(pa)
    psnr = 10 * math.log10(255 ** 2 / mse) if mse else math.inf
    print(f"PSNR {psnr:.1f} dB")
    assert psnr > 40, f"PSNR {psnr:.1f} dB"
PY
}
check "pb convert --to jpeg (libspng, TurboJPEG)" as_user "$ROOT" pb convert --to jpeg -o /home/tester/shot.jpg /home/tester/shot.png
check "the JPEG is the picture (PSNR > 40 dB)" compare "$home/shot.jpg" psnr
check "pb convert --to tiff (libtiff)" as_user "$ROOT" pb convert --to tiff -o /home/tester/shot.tiff /home/tester/shot.png
check "the TIFF is the picture, pixel for pixel" compare "$home/shot.tiff" exact
check "pb copy shot.png" as_user "$ROOT" pb copy /home/tester/shot.png
for type in webp:exact jpeg:psnr tiff:exact; do
  as_user "$ROOT" sh -c "xclip -o -selection clipboard -t image/${type%%:*} > /home/tester/served.${type%%:*}"
  check "pasteboardd serves the PNG copy as image/${type%%:*}" compare "$home/served.${type%%:*}" "${type#*:}"
done

kill -TERM "$daemon"; wait "$daemon"; status=$?
expect "pasteboardd stops on SIGTERM with status 0" 0 "$status"
check "pasteboardd logged no error" sh -c "! grep -iE 'error|fatal' '$SCRATCH/pasteboardd.log'"
kill -TERM "$xvfb"; wait "$xvfb" 2>/dev/null
PIDS=()
exec 4<&- 5<&-

# --- 5. Remove, purge -----------------------------------------------------------------------------------------
files=$(dpkg-deb -c "$DEB" | awk '$1 !~ /^d/ { print substr($6, 2) }')
check "apt-get remove pasteboard" in_root "$ROOT" env DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq pasteboard
left=$(for f in $files; do [ -e "$ROOT$f" ] || [ -L "$ROOT$f" ] && echo "$f"; done)
expect "apt-get remove leaves only the conffile" "/etc/xdg/autostart/pasteboardd.desktop" "$left"
check "apt-get purge --autoremove pasteboard" in_root "$ROOT" env DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq --autoremove pasteboard
after=$(tree)
check "after the purge the root holds exactly the files it held before the install" \
  diff <(echo "$before") <(echo "$after")
expect "and the same packages as before (what it pulled in is gone with it)" "$packages_before" "$(packages)"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
