#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/run.sh — pasteboardd against the tools users would otherwise pick, every figure measured side by
# side in one run on private Xvfb servers: xclip and xsel as owners of CLIPBOARD (round trip, 64 and
# 256 MiB throughput, idle), and the clipboard managers CopyQ, parcellite and ClipIt (change detection,
# a 10 MiB HTML snapshot, takeover after the owner exits, idle). Run it as `make bench` (builds the
# release binaries first), or directly:
#   PB_BIN_DIR=<dir with pasteboardd and pb> bench/run.sh
# Prints a markdown report and writes it to bench/results/latest.md. About 8 minutes; every wait is
# bounded, every process started is stopped by its PID.
#
# Knobs (environment): PB_BENCH_ROUNDTRIPS (300), PB_BENCH_REPS (3), PB_BENCH_BULK_MIB (64),
# PB_BENCH_HUGE_MIB (256; 0 skips that row), PB_BENCH_IDLE_SECONDS (60), PB_BENCH_STARTUP_RUNS (100),
# PB_BENCH_CHANGES (20: ownership changes for detection and takeover), PB_BENCH_HTML_MIB (10),
# PB_BENCH_MANAGERS ("copyq parcellite clipit"; a missing one is reported as n/a), PB_BENCH_KEEP_COPIES (6: HTML
# copies in a row for the keeping rows), PB_BENCH_PICTURE_MIB (50), PB_BENCH_HISTORY_COPIES (20) of
# PB_BENCH_HISTORY_MIB (20) MiB pictures,
# PB_BENCH_OUT (bench/results/latest.md), PB_BENCH_TREE (what the report names as the binaries' source tree;
# default: this checkout's commit, flagged when Sources has uncommitted changes),
# PB_BENCH_KEEP=DIR (copy the scratch directory with raw results and logs there before removing it).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=${PB_BIN_DIR:-$here/../.build/release}
ROUNDTRIPS=${PB_BENCH_ROUNDTRIPS:-300}
REPS=${PB_BENCH_REPS:-3}
BULK_MIB=${PB_BENCH_BULK_MIB:-64}
IDLE_SECONDS=${PB_BENCH_IDLE_SECONDS:-60}
STARTUP_RUNS=${PB_BENCH_STARTUP_RUNS:-100}
HUGE_MIB=${PB_BENCH_HUGE_MIB:-256}
CHANGES=${PB_BENCH_CHANGES:-20}
HTML_MIB=${PB_BENCH_HTML_MIB:-10}
MANAGERS=${PB_BENCH_MANAGERS-copyq parcellite clipit}
KEEP_COPIES=${PB_BENCH_KEEP_COPIES:-6}
PICTURE_MIB=${PB_BENCH_PICTURE_MIB:-50}
HISTORY_COPIES=${PB_BENCH_HISTORY_COPIES:-20}
HISTORY_MIB=${PB_BENCH_HISTORY_MIB:-20}
OUT=${PB_BENCH_OUT:-$here/results/latest.md}

die() { echo "bench: $*" >&2; exit 1; }
note() { echo "bench: $*" >&2; }

for tool in Xvfb xclip xsel cc pkg-config python3 sha256sum timeout; do
  command -v "$tool" >/dev/null || die "$tool is missing (make deps-bench installs it)"
done
[ -x "$bin/pasteboardd" ] && [ -x "$bin/pb" ] || die "no pasteboardd/pb in $bin (set PB_BIN_DIR)"

LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)
work=$(mktemp -d "${TMPDIR:-/tmp}/pb-bench.XXXXXX")
chmod 700 "$work"
res="$work/results"
mkdir -p "$res"

# Every process started here, by PID; the trap stops whatever is still running and removes $work.
PIDS=()
forget() { local p=$1 i; for i in "${!PIDS[@]}"; do [ "${PIDS[$i]}" = "$p" ] && unset "PIDS[$i]"; done; return 0; }
stop_pid() {
  local p=$1 i
  kill -TERM "$p" 2>/dev/null || { forget "$p"; return 0; }
  for i in $(seq 1 40); do kill -0 "$p" 2>/dev/null || break; sleep 0.05; done
  kill -KILL "$p" 2>/dev/null || true
  wait "$p" 2>/dev/null || true
  forget "$p"
}
cleanup() {
  local all=("${PIDS[@]}") i
  for ((i = ${#all[@]} - 1; i >= 0; i--)); do stop_pid "${all[$i]}"; done
  [ -n "${PB_BENCH_KEEP:-}" ] && cp -r "$work" "$PB_BENCH_KEEP"; rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------------------------------------------
# Tools and inputs

REQ="$work/requestor"
OWN="$work/owner"
# shellcheck disable=SC2046
cc -O2 -o "$REQ" "$here/tools/requestor.c" $(pkg-config --cflags --libs x11) || die "cannot compile the requestor"
# shellcheck disable=SC2046
cc -O2 -o "$OWN" "$here/tools/owner.c" $(pkg-config --cflags --libs x11 xfixes) || die "cannot compile the owner tool"

small="$work/small.txt"
printf 'pasteboard benchmark: a short line of text\n' >"$small"
binfile="$work/bulk.bin"
textfile="$work/bulk.txt"
head -c $((BULK_MIB << 20)) /dev/urandom >"$binfile"
# Printable ASCII (valid UTF-8) for the text targets: base64 of random bytes, lines of 76.
head -c $((BULK_MIB << 20)) < <(base64 -w 76 "$binfile") >"$textfile"
sha_bin=$(sha256sum <"$binfile" | cut -d' ' -f1)
sha_text=$(sha256sum <"$textfile" | cut -d' ' -f1)

# Starts a private Xvfb; sets the variable named $1 to its display (":N") and records its PID.
start_xvfb() {
  local var=$1 file="$work/xvfb-$1" i
  : >"$file"
  # -noreset: Xvfb otherwise resets when its last client leaves (between two owners here), dropping
  # interned atoms and resetting connections that arrive during the reset.
  Xvfb -displayfd 3 -nolisten tcp -noreset 3>"$file" 2>"$file.log" &
  PIDS+=($!)
  for i in $(seq 1 100); do grep -q '^[0-9]' "$file" && break; sleep 0.1; done
  grep -q '^[0-9]' "$file" || die "Xvfb did not start: $(tail -3 "$file.log")"
  printf -v "$var" ':%s' "$(head -1 "$file")"
}
start_xvfb DISPLAY_A
start_xvfb DISPLAY_B
export DISPLAY=$DISPLAY_A
# xsel -i offers UTF8_STRING only if that atom already exists on the server.
"$REQ" atoms
DISPLAY=$DISPLAY_B "$REQ" atoms

req() { timeout 120 "$REQ" "$@"; }
# Round trips: a request that is never answered is recorded (the report shows it) and the run goes on.
roundtrip() { # owner rep
  PB_REQ_TIMEOUT_MS=2000 req roundtrip "$ROUNDTRIPS" >"$res/rt.$1.$2.json" 2>"$res/rt.$1.$2.err" || {
    note "$1: $(tail -1 "$res/rt.$1.$2.err")"
    rm -f "$res/rt.$1.$2.json"
  }
}

# ---------------------------------------------------------------------------------------------------
# Owners

PBD_PID=""
PBD_ENV=()
start_pasteboardd() { # display [config.json text]
  local d="$work/xdg-$RANDOM$RANDOM" i
  mkdir -p "$d/run" "$d/state" "$d/config"
  chmod 700 "$d" "$d/run" "$d/state" "$d/config"
  if [ -n "${2:-}" ]; then mkdir -p "$d/config/pasteboard"; printf '%s\n' "$2" >"$d/config/pasteboard/config.json"; fi
  PBD_ENV=(DISPLAY="$1" XDG_RUNTIME_DIR="$d/run" XDG_STATE_HOME="$d/state" XDG_CONFIG_HOME="$d/config")
  env "${PBD_ENV[@]}" "$bin/pasteboardd" 2>>"$work/pasteboardd.log" &
  PBD_PID=$!
  PIDS+=("$PBD_PID")
  for i in $(seq 1 100); do
    env "${PBD_ENV[@]}" timeout 5 "$bin/pb" status >/dev/null 2>&1 && return 0
    kill -0 "$PBD_PID" 2>/dev/null || break
    sleep 0.05
  done
  die "pasteboardd did not start: $(tail -3 "$work/pasteboardd.log")"
}
pb_() { env "${PBD_ENV[@]}" timeout 120 "$bin/pb" "$@"; }

OWNER_PID=""
start_owner() { # display input-file command...
  local display=$1 input=$2
  shift 2
  local what=$*
  DISPLAY=$display "$@" <"$input" >/dev/null 2>>"$work/owners.log" &
  OWNER_PID=$!
  PIDS+=("$OWNER_PID")
  DISPLAY=$display "$REQ" wait-owner 10000 || die "$what did not take CLIPBOARD"
}
stop_owner() { # pid display
  stop_pid "$1"
  DISPLAY=$2 "$REQ" wait-none 5000 || die "CLIPBOARD still has an owner after stopping $1"
}

# Reads TARGET in one conversion into a file, then checks the bytes against the source's sha256.
# Writes $res/NAME.json (the requestor's figures) and $res/NAME.verify ("ok", or why not).
bulk() { # name target expected-sha
  local name=$1 target=$2 sha=$3 out="$work/paste.out" got
  if req bulk "$target" "$out" >"$res/$name.json" 2>"$res/$name.err"; then
    got=$(sha256sum <"$out" | cut -d' ' -f1)
    if [ "$got" = "$sha" ]; then echo ok >"$res/$name.verify"; else echo "sha256 mismatch ($got)" >"$res/$name.verify"; fi
  else
    echo "failed: $(tail -1 "$res/$name.err")" >"$res/$name.verify"
    rm -f "$res/$name.json"
  fi
  rm -f "$out"
}

proc_mem() { # pid -> "VmRSS-kB VmHWM-kB Pss-kB"
  local rss hwm pss
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$1/status")
  hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$1/status")
  pss=$(awk '/^Pss:/ {print $2; exit}' "/proc/$1/smaps_rollup" 2>/dev/null || echo 0)
  echo "$rss $hwm ${pss:-0}"
}

# ---------------------------------------------------------------------------------------------------
# 1 and 2: round trip and 64 MiB throughput, owners interleaved within each repetition

for rep in $(seq 1 "$REPS"); do
  note "repetition $rep/$REPS: pasteboardd"
  start_pasteboardd "$DISPLAY_A"
  pb_ copy <"$small"
  roundtrip pasteboardd "$rep"
  t0=$(date +%s%N)
  pb_ copy -t "application/octet-stream=$binfile"
  echo $(( ($(date +%s%N) - t0) / 1000 )) >"$res/copy.pasteboardd.$rep.us"
  bulk "bin.pasteboardd.$rep" application/octet-stream "$sha_bin"
  proc_mem "$PBD_PID" >"$res/mem-after-bin.pasteboardd.$rep"
  pb_ copy <"$textfile"
  bulk "text.pasteboardd.$rep" UTF8_STRING "$sha_text"
  stop_owner "$PBD_PID" "$DISPLAY_A"

  note "repetition $rep/$REPS: xclip"
  start_owner "$DISPLAY_A" "$small" xclip -i -quiet -selection clipboard
  roundtrip xclip "$rep"
  stop_owner "$OWNER_PID" "$DISPLAY_A"
  start_owner "$DISPLAY_A" "$binfile" xclip -i -quiet -selection clipboard -t application/octet-stream
  bulk "bin.xclip.$rep" application/octet-stream "$sha_bin"
  stop_owner "$OWNER_PID" "$DISPLAY_A"
  start_owner "$DISPLAY_A" "$textfile" xclip -i -quiet -selection clipboard
  bulk "text.xclip.$rep" UTF8_STRING "$sha_text"
  stop_owner "$OWNER_PID" "$DISPLAY_A"

  note "repetition $rep/$REPS: xsel"
  start_owner "$DISPLAY_A" "$small" xsel -b -i -n
  roundtrip xsel "$rep"
  stop_owner "$OWNER_PID" "$DISPLAY_A"
  start_owner "$DISPLAY_A" "$textfile" xsel -b -i -n
  bulk "text.xsel.$rep" UTF8_STRING "$sha_text"
  stop_owner "$OWNER_PID" "$DISPLAY_A"
done

# ---------------------------------------------------------------------------------------------------
# 2c: the paste commands on the same 64 MiB: `pb paste` of what `pb copy` gave pasteboardd (pb takes it from
# the daemon's socket, streamed), `xclip -o` of the same through X, and `xclip -o` of what `xclip -i` owns.
# Wall time from spawn to exit, output to a file, sha256 checked every time.
paste_cmd() { # name display command... (stdout to a file; time in µs to $res/pastecmd.NAME.REP.us)
  local name=$1 display=$2 out="$work/pastecmd.out" t0 got
  shift 2
  t0=$(date +%s%N)
  DISPLAY=$display timeout 120 "$@" >"$out" 2>>"$work/pastecmd.err" || { echo "failed" >"$res/pastecmd.$name.$rep.verify"; return 0; }
  echo $(( ($(date +%s%N) - t0) / 1000 )) >"$res/pastecmd.$name.$rep.us"
  got=$(sha256sum <"$out" | cut -d' ' -f1)
  if [ "$got" = "$sha_bin" ]; then echo ok; else echo "sha256 mismatch"; fi >"$res/pastecmd.$name.$rep.verify"
  rm -f "$out"
}
for rep in $(seq 1 "$REPS"); do
  note "paste commands, repetition $rep/$REPS"
  start_pasteboardd "$DISPLAY_A"
  pb_ copy -t "application/octet-stream=$binfile"
  paste_cmd pb "$DISPLAY_A" env "${PBD_ENV[@]}" "$bin/pb" paste -t application/octet-stream
  paste_cmd xclip-from-pasteboardd "$DISPLAY_A" xclip -o -selection clipboard -t application/octet-stream
  stop_owner "$PBD_PID" "$DISPLAY_A"
  start_owner "$DISPLAY_A" "$binfile" xclip -i -quiet -selection clipboard -t application/octet-stream
  paste_cmd xclip "$DISPLAY_A" xclip -o -selection clipboard -t application/octet-stream
  stop_owner "$OWNER_PID" "$DISPLAY_A"
done

rm -f "$binfile" "$textfile"

# ---------------------------------------------------------------------------------------------------
# 2b: HUGE_MIB (256) MiB of binary, pasteboardd and xclip interleaved. Only one such file exists at a time.

if [ "$HUGE_MIB" -gt 0 ]; then
  hugefile="$work/huge.bin"
  head -c $((HUGE_MIB << 20)) /dev/urandom >"$hugefile"
  sha_huge=$(sha256sum <"$hugefile" | cut -d' ' -f1)
  for rep in $(seq 1 "$REPS"); do
    note "${HUGE_MIB} MiB, repetition $rep/$REPS: pasteboardd, xclip"
    start_pasteboardd "$DISPLAY_A"
    t0=$(date +%s%N)
    pb_ copy -t "application/octet-stream=$hugefile"
    echo $(( ($(date +%s%N) - t0) / 1000 )) >"$res/copy-huge.pasteboardd.$rep.us"
    bulk "huge.pasteboardd.$rep" application/octet-stream "$sha_huge"
    proc_mem "$PBD_PID" >"$res/mem-after-huge.pasteboardd.$rep"
    stop_owner "$PBD_PID" "$DISPLAY_A"
    start_owner "$DISPLAY_A" "$hugefile" xclip -i -quiet -selection clipboard -t application/octet-stream
    bulk "huge.xclip.$rep" application/octet-stream "$sha_huge"
    stop_owner "$OWNER_PID" "$DISPLAY_A"
  done
  rm -f "$hugefile"
fi

# ---------------------------------------------------------------------------------------------------
# 5-7 and the managers' idle rows: pasteboardd on display A and each other manager on a display of its
# own (they would fight over one clipboard), each with a private HOME and XDG directories. The C owner
# (bench/tools/owner.c) takes CLIPBOARD itself and times what the manager does.

htmlfile="$work/page.html"
python3 "$here/tools/gen-html.py" "$htmlfile" "$HTML_MIB"
# Each run offers different bytes (a numbered comment at the end), so no manager can skip a copy as a
# duplicate of the one before.
html_for() { cp "$htmlfile" "$work/page-$1.html"; printf '<!-- %s -->\n' "$1" >>"$work/page-$1.html"; echo "$work/page-$1.html"; }

descendants() { local c; for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do echo "$c"; descendants "$c"; done; }
tree_of() { echo "$1"; descendants "$1"; }
tree_sample() { # pids... -> "cpu-ticks context-switches VmRSS-kB Pss-kB", summed
  local p t=0 w=0 r=0 s=0 x
  for p in "$@"; do
    [ -r "/proc/$p/stat" ] || continue
    x=$(sed 's/^.*) //' "/proc/$p/stat" | awk '{print $12 + $13}'); t=$((t + x))
    x=$(cat /proc/"$p"/task/*/status 2>/dev/null | awk '/^(non)?voluntary_ctxt_switches:/ {s += $2} END {print s + 0}'); w=$((w + x))
    x=$(awk '/^VmRSS:/ {print $2}' "/proc/$p/status" 2>/dev/null); r=$((r + ${x:-0}))
    x=$(awk '/^Pss:/ {print $2; exit}' "/proc/$p/smaps_rollup" 2>/dev/null); s=$((s + ${x:-0}))
  done
  echo "$t $w $r $s"
}
tree_hwm() { local p x h=0; for p in "$@"; do x=$(awk '/^VmHWM:/ {print $2}' "/proc/$p/status" 2>/dev/null || true); h=$((h + ${x:-0})); done; echo "$h"; }
# CPU in ns from the scheduler's own accounting of every thread (/proc/PID/task/*/schedstat, first field), not
# utime/stime's 10 ms ticks.
tree_cpu_ns() { local p x s=0; for p in "$@"; do x=$(cat /proc/"$p"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {printf "%d", s}' || true); s=$((s + ${x:-0})); done; echo "$s"; }
tree_mem() { # pids -> "RssAnon-kB VmRSS-kB", summed
  local p a=0 r=0 x
  for p in "$@"; do
    # A helper may exit between listing and reading (awk then fails): it counts as nothing.
    x=$(awk '/^RssAnon:/ {print $2}' "/proc/$p/status" 2>/dev/null || true); a=$((a + ${x:-0}))
    x=$(awk '/^VmRSS:/ {print $2}' "/proc/$p/status" 2>/dev/null || true); r=$((r + ${x:-0}))
  done
  echo "$a $r"
}

declare -A MGR_PID MGR_HOLDER
mgr_cmd() { # name -> the command, or nothing when it is not installed
  case $1 in
    copyq) command -v copyq || true ;;
    parcellite) command -v parcellite || true ;;
    clipit) command -v clipit.real || true ;;  # Debian's /usr/bin/clipit is a stub that says "deprecated"
  esac
}
start_manager() { # name display -> 0 once it reads the clipboard; else writes $res/mgr.NAME.na
  local name=$1 display=$2 h="$work/home-$1" cmd
  cmd=$(mgr_cmd "$name")
  if [ -z "$cmd" ]; then echo "not installed (make deps-bench installs it)" >"$res/mgr.$name.na"; return 1; fi
  mkdir -p "$h/config" "$h/data" "$h/cache" "$h/run"
  chmod 700 "$h" "$h/run"
  if [ "$name" = parcellite ]; then
    # Parcellite takes the clipboard back when it becomes empty only with "restore empty" on.
    mkdir -p "$h/config/parcellite"
    printf '[rc]\nuse_copy=true\nuse_primary=false\nrestore_empty=true\nsave_history=false\n' >"$h/config/parcellite/parcelliterc"
  fi
  # No D-Bus session: none of the three needs one to watch and keep the clipboard (ClipIt only warns
  # that its app indicator cannot register).
  env -i PATH="$PATH" DISPLAY="$display" HOME="$h" XDG_CONFIG_HOME="$h/config" XDG_DATA_HOME="$h/data" \
    XDG_CACHE_HOME="$h/cache" XDG_RUNTIME_DIR="$h/run" QT_QPA_PLATFORM=xcb "$cmd" >"$work/$name.log" 2>&1 &
  MGR_PID[$name]=$!
  PIDS+=($!)
  if ! DISPLAY=$display timeout 30 "$OWN" ready 20000; then
    echo "did not read the clipboard within 20 s of starting ($(tail -1 "$work/$name.log"))" >"$res/mgr.$name.na"
    stop_manager "$name"
    return 1
  fi
}
stop_manager() { # name: the manager and the processes it started (CopyQ runs helpers), by PID
  local p=${MGR_PID[$1]:-} kids c
  [ -n "$p" ] || return 0
  kids=$(descendants "$p")
  stop_pid "$p"
  for c in $kids; do kill -TERM "$c" 2>/dev/null || true; done
  sleep 0.2
  for c in $kids; do kill -KILL "$c" 2>/dev/null || true; done
  MGR_PID[$1]=""
}

# The rows of one manager; pasteboardd's are measured by the same functions.
measure_latency() { # name display: change detection, then takeover after the owner exits
  local name=$1 display=$2
  note "$name: detection and takeover ($CHANGES changes each)"
  DISPLAY=$display PB_OWNER_ROOT_PROP=$([ "$name" = pasteboardd ] && echo _PASTEBOARD_CHANGE_COUNT_CLIPBOARD) \
    timeout 300 "$OWN" detect "$CHANGES" >"$res/detect.$name.json" 2>"$res/detect.$name.err" || true
  DISPLAY=$display timeout 300 "$OWN" takeover "$CHANGES" >"$res/takeover.$name.json" 2>"$res/takeover.$name.err" || true
}
html_run() { # name display pid rep: one HTML copy; 1 when the manager did not read text/html
  local name=$1 display=$2 pid=$3 rep=$4 f before c cpu0
  f=$(html_for "$name-$rep")
  # shellcheck disable=SC2046
  before=$(tree_sample $(tree_of "$pid"))
  # shellcheck disable=SC2046
  cpu0=$(tree_cpu_ns $(tree_of "$pid"))
  for c in $(tree_of "$pid"); do echo 5 >"/proc/$c/clear_refs" 2>/dev/null || true; done  # VmHWM := VmRSS
  # A manager that never asks for text/html is given 5 s, then reported as not reading it.
  DISPLAY=$display PB_OWNER_DEBUG=1 PB_OWNER_TIMEOUT_MS=$([ "$name" = pasteboardd ] && echo 20000 || echo 5000) \
    timeout 60 "$OWN" html "$f" >"$res/html.$name.$rep.json" 2>"$res/html.$name.$rep.err" || true
  sleep 1   # what the manager does after the last chunk (storing it) counts too
  echo "$before" >"$res/html.$name.$rep.before"
  # shellcheck disable=SC2046
  echo "$(tree_sample $(tree_of "$pid")) $(tree_hwm $(tree_of "$pid"))" >"$res/html.$name.$rep.after"
  # shellcheck disable=SC2046
  echo $(( $(tree_cpu_ns $(tree_of "$pid")) - cpu0 )) >"$res/html.$name.$rep.cpu_ns"
  rm -f "$f"
  ! grep -q '"complete_transfers": 0' "$res/html.$name.$rep.json" 2>/dev/null
}

start_xvfb DISPLAY_C
start_xvfb DISPLAY_D
start_xvfb DISPLAY_E
mgr_displays=("$DISPLAY_C" "$DISPLAY_D" "$DISPLAY_E")
i=0
for m in $MANAGERS; do
  d=${mgr_displays[$i]:-}
  i=$((i + 1))
  [ -n "$d" ] || { echo "no display left for it (at most three managers)" >"$res/mgr.$m.na"; continue; }
  note "starting $m on $d"
  start_manager "$m" "$d" || { note "$m: $(cat "$res/mgr.$m.na")"; continue; }
  case $m in
    copyq) copyq --version 2>/dev/null | awk '/CopyQ/ {print $NF; exit}' >"$res/mgr.$m.version" || true ;;
    *) dpkg-query -W -f='${Version}' "$m" >"$res/mgr.$m.version" 2>/dev/null || true ;;
  esac
  measure_latency "$m" "$d"
  note "$m: ${HTML_MIB} MiB HTML snapshot"
  for rep in $(seq 1 "$REPS"); do
    html_run "$m" "$d" "${MGR_PID[$m]}" "$rep" || break  # one that did not read text/html will not next time
  done
  # For the idle window: another application holds the clipboard and the manager has read it.
  start_owner "$d" "$small" xclip -i -quiet -selection clipboard
  MGR_HOLDER[$m]=$OWNER_PID
done

# pasteboardd with its default configuration. Each HTML run has a fresh daemon holding only a short text, so
# its memory figure is what one snapshot costs.
start_pasteboardd "$DISPLAY_A"
DISPLAY=$DISPLAY_A timeout 30 "$OWN" ready 20000 || die "pasteboardd did not read the clipboard"
measure_latency pasteboardd "$DISPLAY_A"
stop_owner "$PBD_PID" "$DISPLAY_A"
note "pasteboardd: ${HTML_MIB} MiB HTML snapshot"
kept=0
for rep in $(seq 1 "$REPS"); do
  start_pasteboardd "$DISPLAY_A"
  DISPLAY=$DISPLAY_A timeout 30 "$OWN" ready 20000 || die "pasteboardd did not read the clipboard"
  html_run pasteboardd "$DISPLAY_A" "$PBD_PID" "$rep" || true
  # Did it keep the snapshot? (a text/html entry in its history)
  kept=$((kept + $(pb_ history list 2>/dev/null | grep -c 'text/html' || true)))
  stop_owner "$PBD_PID" "$DISPLAY_A"
done
echo "$kept" >"$res/html.pasteboardd.kept"
grep 'skipping text/html' "$work/pasteboardd.log" | tail -1 >"$res/html.pasteboardd.skipped" || true

# The anchor for the snapshot: xclip -o reading the same HTML as a plain requestor, no manager running.
for rep in $(seq 1 "$REPS"); do
  f=$(html_for "xclip-$rep")
  DISPLAY=$DISPLAY_B timeout 60 "$OWN" html "$f" xclip -o -selection clipboard -t text/html \
    >"$res/html.xclip-o.$rep.json" 2>"$res/html.xclip-o.$rep.err" || true
  rm -f "$f"
done

# ---------------------------------------------------------------------------------------------------
# 4: start-up of a paste command, spawned 100 times each, pasteboardd owning a short text

note "start-up: pb paste, xclip -o, xsel -b -o"
start_pasteboardd "$DISPLAY_A"
pb_ copy <"$small"
# Every command runs in pasteboardd's environment, as a user's shell would have it: pb paste finds the daemon
# on its socket (without XDG_RUNTIME_DIR it would not, and would read through X instead).
for c in "$bin/pb paste" "xclip -o -selection clipboard" "xsel -b -o"; do
  # shellcheck disable=SC2086
  cmp -s <(env "${PBD_ENV[@]}" timeout 5 $c) "$small" || die "'$c' did not paste the text"
done
if command -v hyperfine >/dev/null; then
  echo hyperfine >"$res/startup.tool"
  # In 5 rounds, the commands' order rotated each round: hyperfine runs one command's runs in a block, and
  # on a shared machine the load moves between blocks. The rounds' times are merged into startup.json.
  startup_cmds=("pb paste|$bin/pb paste" "xclip -o -selection clipboard|xclip -o -selection clipboard" "xsel -b -o|xsel -b -o")
  for round in 0 1 2 3 4; do
    args=()
    for k in 0 1 2; do c=${startup_cmds[$(( (k + round) % 3 ))]}; args+=(-n "${c%%|*}" "${c#*|}"); done
    env "${PBD_ENV[@]}" timeout 120 hyperfine -N --warmup 5 --runs $(( (STARTUP_RUNS + 4) / 5 )) --style none \
      --export-json "$res/startup.round$round.json" "${args[@]}" >/dev/null
  done
  python3 - "$res" <<'MERGE'
import json, statistics as st, sys
res = sys.argv[1]
times = {}
for r in range(5):
    for result in json.load(open(f"{res}/startup.round{r}.json"))["results"]:
        times.setdefault(result["command"], []).extend(result["times"])
json.dump({"results": [{"command": c, "times": t, "median": st.median(t), "mean": st.mean(t), "stddev": st.pstdev(t)}
                       for c, t in times.items()]}, open(f"{res}/startup.json", "w"))
MERGE
else
  echo "bash loop with date +%s%N" >"$res/startup.tool"
  for c in "$bin/pb paste" "xclip -o -selection clipboard" "xsel -b -o"; do
    name=${c#"$bin/"}
    for i in $(seq 1 5); do env "${PBD_ENV[@]}" $c >/dev/null; done
    for i in $(seq 1 "$STARTUP_RUNS"); do
      t0=$(date +%s%N); env "${PBD_ENV[@]}" $c >/dev/null; echo $(( $(date +%s%N) - t0 ))
    done >"$res/startup.loop.${name%% *}"
  done
fi

# ---------------------------------------------------------------------------------------------------
# 3: idle cost. pasteboardd on display A owning CLIPBOARD (a short text copied with pb copy), a
# foreground xclip owner on display B, and each other manager on its own display while an xclip owner
# there holds a short text the manager has read; all side by side: one window of /proc counters, then
# one window under strace -c. A manager's figures are summed over its process tree (CopyQ runs helpers).

note "idle: 2 windows of ${IDLE_SECONDS}s"
start_owner "$DISPLAY_B" "$small" xclip -i -quiet -selection clipboard
XCLIP_IDLE=$OWNER_PID
sleep 1

declare -A IDLE_PID=([pasteboardd]=$PBD_PID [xclip]=$XCLIP_IDLE)
idle_who=(pasteboardd xclip)
for m in $MANAGERS; do
  [ -n "${MGR_PID[$m]:-}" ] && { IDLE_PID[$m]=${MGR_PID[$m]}; idle_who+=("$m"); }
done
declare -A IDLE_TREE
for who in "${idle_who[@]}"; do
  IDLE_TREE[$who]=$(tree_of "${IDLE_PID[$who]}" | tr '\n' ' ')
  # shellcheck disable=SC2086
  tree_sample ${IDLE_TREE[$who]} >"$res/idle.$who.before"
done
sleep "$IDLE_SECONDS"
for who in "${idle_who[@]}"; do
  # shellcheck disable=SC2086
  read -r t w r p < <(tree_sample ${IDLE_TREE[$who]})
  echo "$t $w" >"$res/idle.$who.after"
  echo "$r 0 $p" >"$res/idle.$who.mem"
  n=0; for c in ${IDLE_TREE[$who]}; do n=$((n + $(ls /proc/"$c"/task 2>/dev/null | wc -l))); done
  echo "$n" >"$res/idle.$who.threads"
  echo "${IDLE_TREE[$who]}" | wc -w >"$res/idle.$who.procs"
done
echo "$(getconf CLK_TCK)" >"$res/clk_tck"

if command -v strace >/dev/null; then
  spids=()
  for who in "${idle_who[@]}"; do
    args=()
    for c in ${IDLE_TREE[$who]}; do args+=(-p "$c"); done
    timeout -s INT "$IDLE_SECONDS" strace -c -f "${args[@]}" -o "$res/strace.$who" 2>"$res/strace.$who.err" &
    spids+=($!)
    PIDS+=($!)
  done
  for p in "${spids[@]}"; do wait "$p" || true; forget "$p"; done
else
  for who in "${idle_who[@]}"; do echo "strace is not installed" >"$res/strace.$who.err"; done
fi
printf '%s\n' "${idle_who[@]}" >"$res/idle.who"
stop_owner "$XCLIP_IDLE" "$DISPLAY_B"
stop_owner "$PBD_PID" "$DISPLAY_A"
for m in $MANAGERS; do
  stop_manager "$m"
  [ -n "${MGR_HOLDER[$m]:-}" ] && stop_pid "${MGR_HOLDER[$m]}"
done

# ---------------------------------------------------------------------------------------------------
# 8: keeping. What holding copies costs, side by side: a fresh pasteboardd (default configuration) on display
# A, each manager started afresh on its own display. The C owner offers each copy (a new one each time) and
# exits once it was read; then: KEEP_COPIES HTML copies in a row (CPU from schedstat per copy, and its peak: VmHWM
# over the fresh reader's VmRSS, since in a row the copy before is given up while the next comes),
# memory while holding the last, a PICTURE_MIB MiB image/png, memory holding it, a short text that replaces it,
# memory then, and HISTORY_COPIES pictures of HISTORY_MIB MiB in a row, memory after (history on: the default).

picfile="$work/picture.png"
keep_offer() { # display file type json: the owner offers file as type and exits once it was read
  # HTML comes with a one-line text beside it, as a browser offers it (CopyQ reads no HTML-only copy).
  DISPLAY=$1 PB_OWNER_TYPE=$3 PB_OWNER_HTML_TEXT=$([ "$3" = text/html ] && echo 1) PB_OWNER_TIMEOUT_MS=$KEEP_TIMEOUT_MS \
    timeout 120 "$OWN" html "$2" >"$4" 2>/dev/null || true
  ! grep -q '"complete_transfers": 0' "$4" 2>/dev/null && [ -s "$4" ]
}
keep_run() { # name display pid
  local name=$1 display=$2 pid=$3 n f c0 rss0 tree
  # shellcheck disable=SC2046
  tree_mem $(tree_of "$pid") >"$res/keep.$name.fresh"
  rss0=$(cut -d' ' -f2 "$res/keep.$name.fresh")
  for n in $(seq 1 "$KEEP_COPIES"); do
    f=$(html_for "keep-$name-$n")
    tree=$(tree_of "$pid")
    for c in $tree; do echo 5 >"/proc/$c/clear_refs" 2>/dev/null || true; done
    # shellcheck disable=SC2086
    c0=$(tree_cpu_ns $tree)
    keep_offer "$display" "$f" text/html "$res/keep.$name.html.$n.json" || { rm -f "$f"; break; }
    sleep 1   # storing it counts
    tree=$(tree_of "$pid")
    # shellcheck disable=SC2086
    echo "$(( $(tree_cpu_ns $tree) - c0 )) $(( $(tree_hwm $tree) - rss0 ))" >"$res/keep.$name.html.$n"
    rm -f "$f"
  done
  # shellcheck disable=SC2046
  tree_mem $(tree_of "$pid") >"$res/keep.$name.holding-html"
  python3 "$here/tools/gen-png.py" "$picfile" "$PICTURE_MIB" 1
  if keep_offer "$display" "$picfile" image/png "$res/keep.$name.picture.json"; then
    sleep 1
    # shellcheck disable=SC2046
    tree_mem $(tree_of "$pid") >"$res/keep.$name.holding-picture"
  fi
  start_owner "$display" "$small" xclip -i -quiet -selection clipboard
  sleep 2
  # shellcheck disable=SC2046
  tree_mem $(tree_of "$pid") >"$res/keep.$name.replaced"
  stop_pid "$OWNER_PID"
  local read=0
  for n in $(seq 1 "$HISTORY_COPIES"); do
    python3 "$here/tools/gen-png.py" "$picfile" "$HISTORY_MIB" "$((n + 1))"
    keep_offer "$display" "$picfile" image/png "$res/keep.$name.history.$n.json" && read=$((read + 1))
    [ "$read" -gt 0 ] || break   # one that did not read the first picture is not offered the others
  done
  echo "$read" >"$res/keep.$name.history-read"
  if [ "$read" -gt 0 ]; then
    sleep 1
    # shellcheck disable=SC2046
    tree_mem $(tree_of "$pid") >"$res/keep.$name.history"
  fi
  rm -f "$picfile"
}

note "keeping: pasteboardd"
KEEP_TIMEOUT_MS=20000
start_pasteboardd "$DISPLAY_A"
DISPLAY=$DISPLAY_A timeout 30 "$OWN" ready 20000 || die "pasteboardd did not read the clipboard"
keep_run pasteboardd "$DISPLAY_A" "$PBD_PID"
stop_pid "$PBD_PID"
KEEP_TIMEOUT_MS=5000   # a manager that does not read a type in 5 s is reported as not reading it
i=0
for m in $MANAGERS; do
  d=${mgr_displays[$i]:-}
  i=$((i + 1))
  [ -n "$d" ] && [ ! -e "$res/mgr.$m.na" ] || continue
  note "keeping: $m"
  rm -rf "$work/home-$m"   # a fresh history
  start_manager "$m" "$d" || { note "$m: $(cat "$res/mgr.$m.na")"; mv "$res/mgr.$m.na" "$res/keep.$m.na"; continue; }
  keep_run "$m" "$d" "${MGR_PID[$m]}"
  stop_manager "$m"
done
rm -f "$htmlfile"

# ---------------------------------------------------------------------------------------------------
# Report

built=$(date -u -r "$bin/pasteboardd" '+%Y-%m-%d %H:%M UTC')
cpu_model=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
mkdir -p "$(dirname "$OUT")"
RES="$res" BULK_MIB="$BULK_MIB" REPS="$REPS" ROUNDTRIPS="$ROUNDTRIPS" IDLE_SECONDS="$IDLE_SECONDS" \
STARTUP_RUNS="$STARTUP_RUNS" HUGE_MIB="$HUGE_MIB" SHA_HUGE="${sha_huge:-}" CHANGES="$CHANGES" HTML_MIB="$HTML_MIB" \
MANAGERS="$MANAGERS" KEEP_COPIES="$KEEP_COPIES" PICTURE_MIB="$PICTURE_MIB" HISTORY_COPIES="$HISTORY_COPIES" \
HISTORY_MIB="$HISTORY_MIB" PB_BUILT="$built" SHA_BIN="$sha_bin" SHA_TEXT="$sha_text" CPU_MODEL="$cpu_model" \
NPROC="$(nproc)" LOADAVG="$(cut -d' ' -f1-3 /proc/loadavg)" LOAD_START="$LOAD_START" KERNEL="$(uname -r)" \
XVFB_VERSION="$(dpkg-query -W -f='${Version}' xvfb 2>/dev/null || echo '?')" \
XCLIP_VERSION="$(xclip -version 2>&1 | awk '{print $3; exit}')" \
XSEL_VERSION="$(xsel --version 2>&1 | awk '{print $3; exit}')" \
PB_VERSION="$("$bin/pb" --version 2>/dev/null || echo '?')" \
PB_TREE="${PB_BENCH_TREE:-$(git -C "$here/.." log -1 --format=%h 2>/dev/null || echo '?')$(git -C "$here/.." diff --quiet HEAD -- Sources Package.swift 2>/dev/null || echo ' with uncommitted Sources changes')}" \
python3 - <<'PY' | tee "$OUT"
import glob, json, os, re, statistics as st

R = os.environ["RES"]
reps = int(os.environ["REPS"])
mib = int(os.environ["BULK_MIB"])

def load(name):
    try:
        with open(os.path.join(R, name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None

def text(name, default=""):
    try:
        with open(os.path.join(R, name)) as f:
            return f.read().strip()
    except OSError:
        return default

def med(values):
    values = [v for v in values if v is not None]
    return st.median(values) if values else None

def rt(owner, key):
    return med([(load(f"rt.{owner}.{r}.json") or {}).get(key) for r in range(1, reps + 1)])

def bulk(kind, owner):
    runs = [load(f"{kind}.{owner}.{r}.json") for r in range(1, reps + 1)]
    verifies = [text(f"{kind}.{owner}.{r}.verify", "not run") for r in range(1, reps + 1)]
    good = [x for x, v in zip(runs, verifies) if x and v == "ok"]
    if not good:
        return None, verifies
    return {
        "mibs": med([x["mib_per_s"] for x in good]),
        "chunks": med([x["chunks"] for x in good]),
        "largest": max(x["largest_chunk"] for x in good),
        "header": good[0]["incr_header"],
        "incr": good[0]["incr"],
        "ok": len(good),
    }, verifies

def f(v, digits=0):
    if v is None:
        return "n/a"
    return f"{v:,.{digits}f}"

def ratio(a, b, lower_better):
    if a is None or b is None or b == 0:
        return "n/a"
    return f"{a / b:.2f}× ({'lower' if lower_better else 'higher'} is better)"

owners = ["pasteboardd", "xclip", "xsel"]
out = []
p = out.append

p("# pasteboard benchmark — latest run")
p("")
p(f"Machine: {os.environ['NPROC']} vCPU ({os.environ['CPU_MODEL']}), kernel {os.environ['KERNEL']}, "
  f"Xvfb {os.environ['XVFB_VERSION']} over a local socket; load average (1, 5, 15 min) at the start "
  f"{os.environ['LOAD_START']}, at the end {os.environ['LOADAVG']}. "
  f"{os.environ['PB_VERSION']} (tree {os.environ['PB_TREE']}; binaries built {os.environ['PB_BUILT']}), xclip {os.environ['XCLIP_VERSION']}, xsel {os.environ['XSEL_VERSION']}. "
  "Every figure below was measured in this one run; compare ratios, not absolute numbers, across runs.")
p("")

# 1. Round trip
p("## 1. Small-paste round trip")
p("")
p(f"One long-lived C requestor (`bench/tools/requestor.c`) asks TARGETS then UTF8_STRING, {os.environ['ROUNDTRIPS']} "
  f"pairs per run, CurrentTime, CLOCK_MONOTONIC; median of the {reps} runs' medians (and of their p90s).")
p("")
p("| owner of CLIPBOARD | median (µs) | p90 (µs) | median vs xclip | median vs xsel |")
p("|---|---|---|---|---|")
for o in owners:
    m, q = rt(o, "median_us"), rt(o, "p90_us")
    p(f"| {o} | {f(m)} | {f(q)} | {ratio(m, rt('xclip', 'median_us'), True)} | {ratio(m, rt('xsel', 'median_us'), True)} |")
p("")
for o in owners:
    for r in range(1, reps + 1):
        err = text(f"rt.{o}.{r}.err")
        if err and not load(f"rt.{o}.{r}.json"):
            p(f"- {o}, run {r} of {reps}: **failed** — `{err.splitlines()[-1]}` (left out of the medians)")
pm, xm = rt("pasteboardd", "median_us"), rt("xclip", "median_us")
if pm and xm:
    p(f"pasteboardd {f(pm)} µs, xclip {f(xm)} µs, ratio {pm / xm:.2f}× (lower is better).")
p("")

# 2. Throughput
p(f"## 2. {mib} MiB paste throughput")
p("")
p(f"The same requestor reads one target in one conversion (INCR as a requestor: delete, then read each chunk "
  f"with delete on PropertyNewValue until a zero-length one), timed from ConvertSelection to the last chunk; "
  f"median of {reps} runs; each paste's sha256 checked against the source file "
  f"(binary {os.environ['SHA_BIN'][:12]}…, text {os.environ['SHA_TEXT'][:12]}…).")
p("")
p("| owner | target | MiB/s | INCR chunks | largest chunk (bytes) | INCR header (total size) | verified | vs xclip |")
p("|---|---|---|---|---|---|---|---|")
rows = {}
for kind, target in (("bin", "application/octet-stream"), ("text", "UTF8_STRING")):
    for o in owners:
        if kind == "bin" and o == "xsel":
            p(f"| xsel | {target} | n/a | n/a | n/a | n/a | n/a — xsel serves only text targets (it has no -t) | n/a |")
            continue
        b, ver = bulk(kind, o)
        rows[(kind, o)] = b
        vtext = "ok" if all(v == "ok" for v in ver) else "; ".join(sorted(set(ver)))
        if b is None:
            p(f"| {o} | {target} | n/a | n/a | n/a | n/a | {vtext} | n/a |")
            continue
        x = rows.get((kind, "xclip")) or bulk(kind, "xclip")[0]
        header = "none written" if b["incr"] and b["header"] == 0 else (f"{b['header']:,}" if b["incr"] else "no INCR")
        p(f"| {o} | {target} | {f(b['mibs'])} | {f(b['chunks'])} | {b['largest']:,} | {header} | {vtext} | "
          f"{ratio(b['mibs'], x['mibs'] if x else None, False)} |")
p("")
pb_bin, xc_bin = rows.get(("bin", "pasteboardd")), rows.get(("bin", "xclip"))
if pb_bin and xc_bin:
    p(f"pasteboardd {f(pb_bin['mibs'])} MiB/s, xclip {f(xc_bin['mibs'])} MiB/s, ratio "
      f"{pb_bin['mibs'] / xc_bin['mibs']:.2f}× (higher is better).")
copy_us = med([int(text(f"copy.pasteboardd.{r}.us", "0")) or None for r in range(1, reps + 1)])
mem = [text(f"mem-after-bin.pasteboardd.{r}").split() for r in range(1, reps + 1)]
mem = [m for m in mem if len(m) == 3]
if copy_us:
    p(f"`pb copy -t application/octet-stream=FILE` of the {mib} MiB file took {copy_us / 1000:.0f} ms (median).")
if mem:
    p(f"pasteboardd after serving it: VmRSS {med([int(m[0]) for m in mem]) / 1024:.1f} MiB, "
      f"VmHWM {med([int(m[1]) for m in mem]) / 1024:.1f} MiB.")
p("")

# 2c. The paste commands
pc = {}
for name in ("pb", "xclip-from-pasteboardd", "xclip"):
    us = [int(text(f"pastecmd.{name}.{r}.us", "0")) or None for r in range(1, reps + 1)]
    ver = [text(f"pastecmd.{name}.{r}.verify", "missing") for r in range(1, reps + 1)]
    pc[name] = (med(us), ver)
p(f"## 2c. {mib} MiB through the paste commands")
p("")
p(f"The same {mib} MiB of random bytes as in 2, pasted by the command a user types, output to a file, wall time "
  f"from spawn to exit, median of {reps}; every output's sha256 checked. `pb paste` takes content pasteboardd holds "
  "from the daemon's socket, streamed (no X transfer); `xclip -o` asks through X.")
p("")
p("| command | owner | ms | MiB/s | verified | vs xclip -o from xclip -i |")
p("|---|---|---|---|---|---|")
base = pc["xclip"][0]
for name, cmd, owner in (("pb", "pb paste -t application/octet-stream", "pasteboardd (pb copy)"),
                         ("xclip-from-pasteboardd", "xclip -o -t application/octet-stream", "pasteboardd (pb copy)"),
                         ("xclip", "xclip -o -t application/octet-stream", "xclip -i")):
    us, ver = pc[name]
    vtext = "ok" if all(v == "ok" for v in ver) else "; ".join(sorted(set(ver)))
    if us is None:
        p(f"| `{cmd}` | {owner} | n/a | n/a | {vtext} | n/a |")
        continue
    p(f"| `{cmd}` | {owner} | {us / 1000:,.0f} | {mib / (us / 1e6):,.0f} | {vtext} | "
      f"{ratio(us, base, True) if base else 'n/a'} |")
p("")

# 2b. The large paste
huge = int(os.environ["HUGE_MIB"])
hb = {}
if huge > 0:
    p(f"## 3. {huge} MiB paste throughput")
    p("")
    p(f"As in 2, application/octet-stream only ({huge} MiB of random bytes, sha256 {os.environ['SHA_HUGE'][:12]}…), "
      f"pasteboardd (`pb copy -t application/octet-stream=FILE`) and `xclip -t application/octet-stream` interleaved, "
      f"median of {reps}.")
    p("")
    p("| owner | MiB/s | INCR chunks | largest chunk (bytes) | verified | vs xclip |")
    p("|---|---|---|---|---|---|")
    for o in ("pasteboardd", "xclip"):
        b, ver = bulk("huge", o)
        hb[o] = b
    for o in ("pasteboardd", "xclip"):
        b, ver = bulk("huge", o)
        vtext = "ok" if all(v == "ok" for v in ver) else "; ".join(sorted(set(ver)))
        if b is None:
            p(f"| {o} | n/a | n/a | n/a | {vtext} | n/a |")
            continue
        p(f"| {o} | {f(b['mibs'])} | {f(b['chunks'])} | {b['largest']:,} | {vtext} | "
          f"{ratio(b['mibs'], (hb.get('xclip') or {}).get('mibs'), False)} |")
    hc = med([int(text(f"copy-huge.pasteboardd.{r}.us", "0")) or None for r in range(1, reps + 1)])
    hm = [text(f"mem-after-huge.pasteboardd.{r}").split() for r in range(1, reps + 1)]
    hm = [m for m in hm if len(m) == 3]
    p("")
    if hc:
        p(f"`pb copy` of the {huge} MiB file took {hc / 1000:.0f} ms (median).")
    if hm:
        p(f"pasteboardd after serving it: VmRSS {med([int(m[0]) for m in hm]) / 1024:.1f} MiB, "
          f"VmHWM {med([int(m[1]) for m in hm]) / 1024:.1f} MiB.")
    p("")

# The managers
managers = os.environ["MANAGERS"].split()
mgrs = ["pasteboardd"] + managers
changes = int(os.environ["CHANGES"])
html_mib = int(os.environ["HTML_MIB"])
tck = int(text("clk_tck", "100"))

def na(m):
    return text(f"mgr.{m}.na")

def version(m):
    return text(f"mgr.{m}.version") if m != "pasteboardd" else os.environ["PB_VERSION"]

def stat(d, key):
    v = (d or {}).get(key)
    return v.get("median_us") if isinstance(v, dict) else None

def ms(us, digits=2):
    return "n/a" if us is None else f"{us / 1000:,.{digits}f}"

p("## 4. Ownership-change detection")
p("")
p(f"The C owner (`bench/tools/owner.c detect {changes}`) takes CLIPBOARD {changes} times with a new text "
  "(XSetSelectionOwner with a server timestamp) and times from that call to the first SelectionRequest "
  "it receives (the manager starts reading), to the first text target it serves (the manager has the new "
  "content), and for pasteboardd to the PropertyNotify of the root property "
  "`_PASTEBOARD_CHANGE_COUNT_CLIPBOARD` (the new changeCount visible to any X client; `pb watch` subscribers are told right after, "
  "in the same handler). Between changes it serves until nobody asked for 300 ms (at most 1.5 s), then waits "
  "a random 0–100 ms. Each manager on its own Xvfb; medians over the changes.")
p("")
p("| manager | first request (ms) | text read (ms), median | p90 | changeCount visible (ms) | changes not read | pasteboardd vs it |")
p("|---|---|---|---|---|---|---|")
det = {m: load(f"detect.{m}.json") for m in mgrs}
pb_det = stat(det["pasteboardd"], "text_served")
for m in mgrs:
    if na(m):
        p(f"| {m} | n/a — {na(m)} | | | | | |")
        continue
    d = det[m]
    if not d:
        p(f"| {m} {version(m)} | n/a — failed: {text(f'detect.{m}.err').splitlines()[-1:] or 'no output'} | | | | | |")
        continue
    t = d.get("text_served") or {}
    p(f"| {m} {version(m)} | {ms(stat(d, 'first_request'))} | {ms(t.get('median_us'))} | {ms(t.get('p90_us'))} | "
      f"{ms(stat(d, 'root_property')) if m == 'pasteboardd' else '—'} | {d['not_read']} of {d['changes']} | "
      f"{'—' if m == 'pasteboardd' else ratio(pb_det, t.get('median_us'), True)} |")
p("")

p(f"## 5. Snapshot of a {html_mib} MiB HTML copy")
p("")
p(f"The C owner (`owner html FILE`) offers {html_mib} MiB of generated HTML as `text/html` only (TARGETS, "
  "TIMESTAMP, text/html; INCR in 1 MiB chunks with the size in the INCR property), a different comment at "
  "the end each time. Time = from XSetSelectionOwner to the last chunk of the first complete transfer "
  "being taken. CPU = what the scheduler accounted to every thread of the manager's process tree "
  "(/proc/PID/task/*/schedstat, ns) from just before the copy until 1 s "
  "after the owner is done (so storing the snapshot counts); peak = VmHWM after, minus VmRSS before "
  "(VmHWM reset through /proc/PID/clear_refs). pasteboardd runs with its default configuration. The anchor `xclip -o -t text/html` "
  "is run by the owner itself (no manager on that display): its time is from ownership to its last "
  "chunk, its CPU and peak RSS from wait4(). Median over the runs.")
p("")

def html_runs(m):
    runs = []
    for r in range(1, reps + 1):
        j = load(f"html.{m}.{r}.json")
        if not j:
            continue
        b, a = text(f"html.{m}.{r}.before").split(), text(f"html.{m}.{r}.after").split()
        cpu = hwm = None
        if m == "xclip-o":
            cpu, hwm = j.get("cmd_cpu_s", 0) * 1000, j.get("cmd_maxrss_kb", 0) / 1024
        elif len(b) == 4 and len(a) == 5:
            ns = text(f"html.{m}.{r}.cpu_ns")
            cpu = int(ns) / 1e6 if ns else (int(a[0]) - int(b[0])) * 1000 / tck
            hwm = (int(a[4]) - int(b[2])) / 1024
        asked = sorted(set(re.findall(r"request (\S+) from", text(f"html.{m}.{r}.err"))))
        runs.append((j, cpu, hwm, asked))
    return runs

kept, skipped = text("html.pasteboardd.kept", "?"), text("html.pasteboardd.skipped")
p(f"pasteboardd (a fresh daemon for each run, holding a short text before it) had kept {kept} of {reps} HTML copies in its history"
  + (f"; its log says: `{skipped}`." if skipped else "."))
p("")
p("| reader | runs | time to the whole HTML (ms) | full transfers per copy | CPU (ms) | peak memory (MiB) | targets it asked for | pasteboardd vs it (time) |")
p("|---|---|---|---|---|---|---|---|")
html = {}
for m in mgrs + ["xclip-o"]:
    if m != "xclip-o" and na(m):
        p(f"| {m} | n/a — {na(m)} | | | | | | |")
        continue
    runs = html_runs(m)
    good = [x for x in runs if x[0].get("first_complete_us", -1) > 0]
    asked = sorted(set(a for x in runs for a in x[3]))
    label = "xclip -o -t text/html" if m == "xclip-o" else f"{m} {version(m)}"
    if not good:
        why = "never read text/html" if runs else "failed"
        p(f"| {label} | {len(runs)} | n/a — {why} | 0 | | | {', '.join(asked) or 'none'} | n/a |")
        html[m] = None
        continue
    t = med([x[0]["first_complete_us"] for x in good])
    html[m] = {"t": t, "cpu": med([x[1] for x in good]), "hwm": med([x[2] for x in good]),
               "transfers": med([x[0]["complete_transfers"] for x in good])}
    h = html[m]
    p(f"| {label} | {len(good)} | {ms(t, 1)} | {f(h['transfers'])} | {f(h['cpu'])} | {f(h['hwm'], 1)} | "
      f"{', '.join(asked) if m != 'xclip-o' else 'text/html'} | {'—' if m == 'pasteboardd' else ratio((html.get('pasteboardd') or {}).get('t'), t, True)} |")
p("")

p("## 6. Takeover after the owner exits")
p("")
p(f"The C owner (`owner takeover {changes}`) takes CLIPBOARD with a new text on a fresh X connection, waits "
  "until the manager has read it (and 300 ms of quiet), then closes that connection (the owner exits) and "
  "times, through an XFixes SetSelectionOwner event on a second connection, until someone owns CLIPBOARD "
  "again; then it reads UTF8_STRING from the new owner and compares it with the text. parcellite runs "
  "with `restore_empty=true` (off by default); a manager that does not take over within 3 s three times "
  "in a row is recorded as never doing it.")
p("")
p("| manager | takeover (ms), median | p90 | not taken over | wrong content | pasteboardd vs it |")
p("|---|---|---|---|---|---|")
tk = {m: load(f"takeover.{m}.json") for m in mgrs}
pb_tk = stat(tk["pasteboardd"], "takeover")
for m in mgrs:
    if na(m):
        p(f"| {m} | n/a — {na(m)} | | | | |")
        continue
    d = tk[m]
    if not d:
        p(f"| {m} | n/a — failed | | | | |")
        continue
    t = d.get("takeover") or {}
    p(f"| {m} {version(m)} | {ms(t.get('median_us'))} | {ms(t.get('p90_us'))} | {d['not_taken_over']} of {d['changes']} | "
      f"{d['wrong_content']} | {'—' if m == 'pasteboardd' else ratio(pb_tk, t.get('median_us'), True)} |")
p("")

# 3. Idle
secs = int(os.environ["IDLE_SECONDS"])
p(f"## 7. Idle cost over {secs} s, nobody copying or pasting")
p("")
p("All side by side, each on its own Xvfb: pasteboardd owning CLIPBOARD (a short text copied with `pb copy`), "
  "a foreground `xclip -i -quiet` owning the same text, and each other manager while an `xclip -quiet` "
  "owner on its display holds a short text the manager has read. CPU from /proc/PID/stat utime+stime "
  f"(resolution {1000 // tck} ms); wakeups = voluntary + nonvoluntary context switches summed over "
  "/proc/PID/task/*/status; both over one window. Syscalls from `strace -c -f -p PID...` over a second window "
  "of the same length (strace's attach interrupts a blocked poll once: that shows as `restart_syscall`). "
  "RSS = VmRSS, PSS = Pss from /proc/PID/smaps_rollup at the end of the first window. A manager's figures "
  "are summed over its process tree (CopyQ runs a clipboard-monitor process next to its server).")
p("")
idle = {}
who = text("idle.who").split() or ["pasteboardd", "xclip"]
for o in who:
    b, a = text(f"idle.{o}.before").split(), text(f"idle.{o}.after").split()
    m = text(f"idle.{o}.mem").split()
    d = {"cpu": None, "wake": None, "rss": None, "pss": None, "sys": None, "sysnames": "",
         "threads": text(f"idle.{o}.threads", "?"), "procs": text(f"idle.{o}.procs", "?")}
    if len(a) >= 2 and len(b) >= 2:
        d["cpu"] = (int(a[0]) - int(b[0])) / tck
        d["wake"] = int(a[1]) - int(b[1])
    if len(m) == 3:
        d["rss"], d["pss"] = int(m[0]) / 1024, int(m[2]) / 1024
    s = text(f"strace.{o}")
    attached = "attached" in text(f"strace.{o}.err") and os.path.exists(os.path.join(R, f"strace.{o}"))
    if s or attached:
        # strace -c writes nothing at all when the process made no syscall in the window.
        calls, names = 0, []
        for line in s.splitlines():
            cols = line.split()
            if len(cols) >= 5 and re.match(r"^[\d.]+$", cols[0]) and cols[-1] != "total":
                names.append(f"{cols[-1]} {cols[3]}")
            if cols and cols[-1] == "total":
                calls = int(cols[3])
        d["sys"] = calls
        d["sysnames"] = ", ".join(names[:4]) + (", …" if len(names) > 4 else "") if names else "none"
    else:
        err = text(f"strace.{o}.err")
        d["sysnames"] = "strace failed: " + (err.splitlines()[-1] if err else "no output")
    idle[o] = d
p("| process | CPU s | wakeups | syscalls (most frequent) | RSS MiB | PSS MiB | processes / threads |")
p("|---|---|---|---|---|---|---|")
for o in who:
    d = idle[o]
    sysf = "n/a" if d["sys"] is None else str(d["sys"])
    p(f"| {o} | {f(d['cpu'], 2)} | {f(d['wake'])} | {sysf} ({d['sysnames']}) | {f(d['rss'], 1)} | {f(d['pss'], 1)} | {d['procs']} / {d['threads']} |")
for m in managers:
    if m not in idle:
        p(f"| {m} | n/a — {na(m) or 'not running'} | | | | | |")
pi = idle["pasteboardd"]
p("")

# 4. Start-up
p("## 8. Paste command start-up")
p("")
tool = text("startup.tool")
p(f"Each command spawned {os.environ['STARTUP_RUNS']} times ({tool}{', `-N --warmup 5`, in 5 rounds with the order rotated' if tool == 'hyperfine' else ''}), "
  "pasteboardd owning the short text; every command pastes it (checked once before timing), in the daemon's "
  "environment (pb reaches it on its socket).")
p("")
su = {}
hj = load("startup.json")
if hj:
    for r in hj["results"]:
        su[r["command"]] = (r["median"] * 1000, r["mean"] * 1000, (r.get("stddev") or 0) * 1000)
else:
    for name, key in (("pb paste", "pb"), ("xclip -o -selection clipboard", "xclip"), ("xsel -b -o", "xsel")):
        try:
            v = [int(x) / 1e6 for x in text(f"startup.loop.{key}").split()]
            su[name] = (st.median(v), st.mean(v), st.pstdev(v))
        except (ValueError, st.StatisticsError):
            pass
p("| command | median (ms) | mean ± sd (ms) | vs xclip -o | vs xsel -b -o |")
p("|---|---|---|---|---|")
xo, xs = su.get("xclip -o -selection clipboard"), su.get("xsel -b -o")
for name in ("pb paste", "xclip -o -selection clipboard", "xsel -b -o"):
    v = su.get(name)
    if not v:
        p(f"| `{name}` | n/a | n/a | n/a | n/a |")
        continue
    p(f"| `{name}` | {v[0]:.2f} | {v[1]:.2f} ± {v[2]:.2f} | {ratio(v[0], xo[0] if xo else None, True)} | "
      f"{ratio(v[0], xs[0] if xs else None, True)} |")
p("")

# 8. Keeping
kc, pic_mib, hc, hmib = int(os.environ["KEEP_COPIES"]), int(os.environ["PICTURE_MIB"]), int(os.environ["HISTORY_COPIES"]), int(os.environ["HISTORY_MIB"])
html_bytes = (load("html.xclip-o.1.json") or {}).get("bytes") or html_mib << 20
p("## 8. Keeping")
p("")
p(f"What holding copies costs. A fresh pasteboardd (default configuration: history on, on disk) and each manager "
  f"started afresh with an empty history, each on its own Xvfb. The C owner offers every copy (a new one each time: "
  f"`owner html FILE` with a one-line text beside the HTML as a browser offers it, `PB_OWNER_TYPE=image/png` for "
  f"pictures, 1 MiB INCR chunks) and exits once it was read. "
  f"In turn: {kc} {html_mib} MiB HTML copies in a row — CPU per copy from the scheduler's accounting of every thread "
  f"(/proc/PID/task/*/schedstat, ns) from just before the copy until 1 s after the owner is done, peak = VmHWM during "
  f"the copy minus the fresh reader's VmRSS (in a row, the copy before is given up as the next comes) —; anonymous memory (RssAnon) holding the last; a {pic_mib} MiB image/png (random pixels, stored); "
  f"RssAnon holding it; a short text (xclip -i) that replaces it, RssAnon 2 s later; then {hc} pictures of {hmib} MiB in "
  f"a row, VmRSS after. Memory is summed over the process tree (CopyQ runs helpers). \"Steady state\" = the median of "
  f"copies 2–{kc}; the anchor for CPU is `xclip -o -t text/html` reading the same HTML (section 5, wait4's CPU).")
p("")

def kmem(m, what):
    v = text(f"keep.{m}.{what}").split()
    return (int(v[0]) / 1024, int(v[1]) / 1024) if len(v) == 2 else None

keep = {}
for m in ["pasteboardd"] + managers:
    why = text(f"keep.{m}.na") or (na(m) if m != "pasteboardd" else "")
    runs = []
    for n in range(1, kc + 1):
        v = text(f"keep.{m}.html.{n}").split()
        if len(v) == 2:
            runs.append((int(v[0]) / 1e6, int(v[1]) / 1024))
    keep[m] = {"na": why, "runs": runs, "fresh": kmem(m, "fresh"), "html": kmem(m, "holding-html") if runs else None,
               "picture": kmem(m, "holding-picture"), "replaced": kmem(m, "replaced"),
               "history": kmem(m, "history"), "history_read": int(text(f"keep.{m}.history-read", "0") or 0)}
    k = keep[m]
    k["first"] = runs[0][0] if runs else None
    k["steady"] = med([r[0] for r in runs[1:]]) if len(runs) > 1 else None
    k["peak_first"] = runs[0][1] if runs else None
    k["peak_steady"] = med([r[1] for r in runs[1:]]) if len(runs) > 1 else None
p("| reader | HTML copies read | CPU per copy (ms), 1st … last | peak over fresh VmRSS (MiB), 1st / steady | RssAnon holding the HTML (MiB, ÷ content) | "
  f"holding {pic_mib} MiB picture (MiB, ÷ content) | after the short text (MiB, ÷ fresh) | VmRSS after {hc} × {hmib} MiB pictures (MiB, ÷ fresh) |")
p("|---|---|---|---|---|---|---|---|")
def div(a, b):
    return "n/a" if a is None or not b else f"{a:,.1f} ({a / b:.2f}×)"
for m, k in keep.items():
    label = f"{m} {version(m)}"
    if k["na"]:
        p(f"| {label} | n/a — {k['na']} | | | | | | |")
        continue
    runs = k["runs"]
    cpus = " / ".join(f"{r[0]:.1f}" for r in runs) or "never read text/html"
    fresh_anon, fresh_rss = k["fresh"] or (None, None)
    pictxt = div(k["picture"] and k["picture"][0], pic_mib) if k["picture"] else "never read image/png"
    histtxt = (div(k["history"] and k["history"][1], fresh_rss) + (f", read {k['history_read']} of {hc}" if k["history_read"] < hc else "")) if k["history"] else "never read image/png"
    p(f"| {label} | {len(runs)} of {kc} | {cpus} | {f(k['peak_first'], 1)} / {f(k['peak_steady'], 1)} | "
      f"{div(k['html'] and k['html'][0], html_bytes / (1 << 20)) if k['html'] else 'n/a'} | {pictxt} | "
      f"{div(k['replaced'] and k['replaced'][0], fresh_anon)} | {histtxt} |")
p("")
xo_cpu = (html.get("xclip-o") or {}).get("cpu")
pk = keep["pasteboardd"]
p(f"pasteboardd, keeping one {html_mib} MiB HTML copy: first copy {f(pk['first'], 1)} ms, steady state {f(pk['steady'], 1)} ms of CPU "
  f"against {f(xo_cpu, 1)} ms for `xclip -o` reading it ({ratio(pk['first'], xo_cpu, True)} and {ratio(pk['steady'], xo_cpu, True)}; "
  f"the aim ≤ 1.5× both); peak {f(pk['peak_first'], 1)} / {f(pk['peak_steady'], 1)} MiB, "
  f"{f(pk['peak_first'] and pk['peak_first'] / (html_bytes / (1 << 20)), 2)}× / {f(pk['peak_steady'] and pk['peak_steady'] / (html_bytes / (1 << 20)), 2)}× the content (aim ≤ 1.2×).")
p("")

def yn(c):
    return "n/a" if c is None else ("yes" if c else "**no**")
# Every row against its anchor
p("## Every row against its anchor")
p("")
p("Ratio = pasteboardd ÷ anchor, from this run. \"Ahead\" means lower time/CPU/memory or higher throughput "
  "than the anchor (equal counts as not behind for zero-valued idle figures). The reason is given where "
  "pasteboardd is not ahead; the reasons are explained in docs/performance.md.")
p("")
p("| row | pasteboardd | anchor | anchor figure | ratio | ahead | why not |")
p("|---|---|---|---|---|---|---|")
WHY = {
    "rt": "within run-to-run noise: most of a round trip is the X server; the daemon spends ~14 µs more CPU per request than xclip (RequestServer: TARGETS from the conversion table)",
    "bulk": "every byte crosses the X server twice through serial INCR; the daemon's CPU is about xclip's, the X server's is the rest",
    "detect": "the daemon publishes the count, then asks the new owner for TARGETS: two X round trips before the text is read",
    "snap": "the daemon keeps what it read: the 10 MiB are written once (the history entry, clipboard.archive a hard link to it, on the writer thread, with fsync) and digested for de-duplication; xclip -o only writes them out",
    "keepmem": "pasteboardd holds the content it serves in memory (part 2 of issue 25, serving it from its file, is open)",
    "snapmem": "the daemon keeps the 10 MiB content (the writer thread saves it from the content's own arrays); xclip -o holds only what it is writing out",
    "takeover": "the daemon handles the events already received, re-checks the owner and claims the clipboard as of the vanished owner's selection time, so a destroy-then-own successor still wins",
    "idlerss": "a Swift binary (static stdlib) touches more pages than a small C tool",
    "idle": "",
    "startup": "start-up of the Swift runtime in a 19 MB static binary (more page faults than xclip: docs/performance.md); the paste itself is one socket round trip to the daemon, faster than an X connection",
}
def row(name, pbv, anchor, av, lower, unit, why, fmt=lambda v: f"{v:,.2f}"):
    if pbv is None or av is None:
        p(f"| {name} | {'n/a' if pbv is None else fmt(pbv) + ' ' + unit} | {anchor} | "
          f"{'n/a' if av is None else fmt(av) + ' ' + unit} | n/a | n/a | {'' if av is not None else 'anchor not measured (see its section)'} |")
        return
    r = "n/a" if av == 0 else f"{pbv / av:.2f}×"
    ahead = pbv < av if lower else pbv > av
    if av == 0 and pbv == 0:
        ahead = None
    mark = "tie (both zero)" if ahead is None else ("yes" if ahead else "**no**")
    p(f"| {name} | {fmt(pbv)} {unit} | {anchor} | {fmt(av)} {unit} | {r} | {mark} | {'' if ahead in (True, None) else why} |")

row("small-paste round trip", pm, "xclip", xm, True, "µs", WHY["rt"], lambda v: f"{v:,.0f}")
row("small-paste round trip", pm, "xsel", rt("xsel", "median_us"), True, "µs", WHY["rt"], lambda v: f"{v:,.0f}")
pbm, xcm = (pb_bin or {}).get("mibs"), (xc_bin or {}).get("mibs")
row(f"{mib} MiB paste (aim: 2× xclip)", pbm, "xclip", xcm, False, "MiB/s", WHY["bulk"] + "; 2× is not reachable through X", lambda v: f"{v:,.0f}")
pcu, pcx = pc["pb"][0], pc["xclip"][0]
row(f"{mib} MiB through `pb paste` (from the daemon)", pcu and mib / (pcu / 1e6), "xclip -o from xclip -i",
    pcx and mib / (pcx / 1e6), False, "MiB/s", "", lambda v: f"{v:,.0f}")
if huge > 0:
    row(f"{huge} MiB paste", (hb.get("pasteboardd") or {}).get("mibs"), "xclip", (hb.get("xclip") or {}).get("mibs"),
        False, "MiB/s", WHY["bulk"], lambda v: f"{v:,.0f}")
for m in managers:
    row("change detection (text read)", pb_det, m, stat(det.get(m), "text_served") if not na(m) else None, True, "ms",
        WHY["detect"], lambda v: f"{v / 1000:,.2f}")
row("change detection (changeCount visible)", stat(det["pasteboardd"], "root_property"), "CopyQ (text read)",
    stat(det.get("copyq"), "text_served") if "copyq" in det and not na("copyq") else None, True, "ms", WHY["detect"],
    lambda v: f"{v / 1000:,.2f}")
ph, xh = html.get("pasteboardd") or {}, html.get("xclip-o") or {}
row(f"{html_mib} MiB HTML snapshot, time", ph.get("t"), "xclip -o", xh.get("t"), True, "ms", WHY["snap"], lambda v: f"{v / 1000:,.1f}")
row(f"{html_mib} MiB HTML snapshot, CPU", ph.get("cpu"), "xclip -o", xh.get("cpu"), True, "ms", WHY["snap"], lambda v: f"{v:,.0f}")
row(f"{html_mib} MiB HTML snapshot, peak memory", ph.get("hwm"), "xclip -o", xh.get("hwm"), True, "MiB", WHY["snapmem"], lambda v: f"{v:,.1f}")
row(f"keeping a {html_mib} MiB HTML copy, CPU, first copy", pk["first"], "xclip -o", xo_cpu, True, "ms", WHY["snap"], lambda v: f"{v:,.1f}")
row(f"keeping a {html_mib} MiB HTML copy, CPU, steady state (copies 2–{kc})", pk["steady"], "xclip -o", xo_cpu, True, "ms", WHY["snap"], lambda v: f"{v:,.1f}")
for what, label, unit_of in (("html", f"RssAnon holding the {html_mib} MiB HTML", 0), ("picture", f"RssAnon holding the {pic_mib} MiB picture", 0),
                             ("replaced", "RssAnon after a short text replaced them", 0), ("history", f"VmRSS after {hc} × {hmib} MiB pictures", 1)):
    for m in managers:
        km = keep.get(m) or {}
        if km.get("na"):
            continue
        if km.get(what) is None:
            p(f"| {label} | {f(pk[what] and pk[what][unit_of], 1)} MiB | {m} | does not read it | n/a | yes (it keeps nothing) | |")
        else:
            row(label, pk[what] and pk[what][unit_of], m, km[what][unit_of], True, "MiB", WHY["keepmem"], lambda v: f"{v:,.1f}")
for m in managers:
    if not na(m) and html.get(m) is None:
        p(f"| {html_mib} MiB HTML snapshot | {ms(ph.get('t'), 1)} ms | {m} | never read text/html | n/a | yes (it keeps nothing) | |")
    elif not na(m):
        row(f"{html_mib} MiB HTML snapshot, time", ph.get("t"), m, html[m]["t"], True, "ms", WHY["snap"], lambda v: f"{v / 1000:,.1f}")
for m in managers:
    d = tk.get(m) if not na(m) else None
    if d and d.get("takeover") is None and d.get("not_taken_over"):
        p(f"| takeover after the owner exits | {ms(pb_tk)} ms | {m} | never takes over | n/a | yes (it does not do it) | |")
    else:
        row("takeover after the owner exits", pb_tk, m, stat(d, "takeover"), True, "ms", WHY["takeover"], lambda v: f"{v / 1000:,.2f}")
for o in [x for x in who if x != "pasteboardd"]:
    d = idle[o]
    row(f"idle {secs} s: CPU", pi["cpu"], o, d["cpu"], True, "s", WHY["idle"])
    row(f"idle {secs} s: wakeups", pi["wake"], o, d["wake"], True, "", WHY["idle"], lambda v: f"{v:,.0f}")
    row(f"idle {secs} s: RSS", pi["rss"], o, d["rss"], True, "MiB", WHY["idlerss"], lambda v: f"{v:,.1f}")
pbs = (su.get("pb paste") or (None,))[0]
row("`pb paste` start-up", pbs, "xclip -o", (xo or (None,))[0], True, "ms", WHY["startup"])
row("`pb paste` start-up", pbs, "xsel -b -o", (xs or (None,))[0], True, "ms", WHY["startup"])
p("")
p("Conversion throughput (pb convert vs unrtf and pandoc) is measured by bench/convert.sh: bench/results/convert.md.")
p("")
p("Fixed aims of issue 2: " +
  f"round trip no slower than xclip's: {yn(None if pm is None or xm is None else pm <= xm)}; "
  f"{mib} MiB at 2× xclip: {yn(None if pbm is None or xcm is None else pbm >= 2 * xcm)}; "
  f"zero wakeups idle: {yn(None if pi['wake'] is None else pi['wake'] == 0)}; "
  f"RSS under 10 MiB: {yn(None if pi['rss'] is None else pi['rss'] < 10)} ({f(pi['rss'], 1)} MiB).")
p("")
print("\n".join(out))
PY
note "report written to $OUT"
