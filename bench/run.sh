#!/usr/bin/env bash
# bench/run.sh — pasteboardd against xclip and xsel as the owner of CLIPBOARD, measured side by side in
# one run on a private Xvfb. Run it as `make bench` (builds the release binaries first), or directly:
#   PB_BIN_DIR=<dir with pasteboardd and pb> bench/run.sh
# Prints a markdown report and writes it to bench/results/latest.md. About 2 minutes; every wait is bounded.
#
# Knobs (environment): PB_BENCH_ROUNDTRIPS (300), PB_BENCH_REPS (3), PB_BENCH_BULK_MIB (64),
# PB_BENCH_IDLE_SECONDS (30), PB_BENCH_STARTUP_RUNS (100), PB_BENCH_OUT (bench/results/latest.md),
# PB_BENCH_KEEP=DIR (copy the scratch directory with raw results and logs there before removing it).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bin=${PB_BIN_DIR:-$here/../.build/release}
ROUNDTRIPS=${PB_BENCH_ROUNDTRIPS:-300}
REPS=${PB_BENCH_REPS:-3}
BULK_MIB=${PB_BENCH_BULK_MIB:-64}
IDLE_SECONDS=${PB_BENCH_IDLE_SECONDS:-30}
STARTUP_RUNS=${PB_BENCH_STARTUP_RUNS:-100}
OUT=${PB_BENCH_OUT:-$here/results/latest.md}

die() { echo "bench: $*" >&2; exit 1; }
note() { echo "bench: $*" >&2; }

for tool in Xvfb xclip xsel cc pkg-config python3 sha256sum timeout; do
  command -v "$tool" >/dev/null || die "$tool is missing (make deps-bench installs it)"
done
[ -x "$bin/pasteboardd" ] && [ -x "$bin/pb" ] || die "no pasteboardd/pb in $bin (set PB_BIN_DIR)"

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
# shellcheck disable=SC2046
cc -O2 -o "$REQ" "$here/tools/requestor.c" $(pkg-config --cflags --libs x11) || die "cannot compile the requestor"

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
start_pasteboardd() { # display
  local d="$work/xdg-$RANDOM$RANDOM" i
  mkdir -p "$d/run" "$d/state" "$d/config"
  chmod 700 "$d" "$d/run" "$d/state" "$d/config"
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
# 4: start-up of a paste command, spawned 100 times each, pasteboardd owning a short text

note "start-up: pb paste, xclip -o, xsel -b -o"
start_pasteboardd "$DISPLAY_A"
pb_ copy <"$small"
for c in "$bin/pb paste" "xclip -o -selection clipboard" "xsel -b -o"; do
  # shellcheck disable=SC2086
  cmp -s <(timeout 5 $c) "$small" || die "'$c' did not paste the text"
done
if command -v hyperfine >/dev/null; then
  echo hyperfine >"$res/startup.tool"
  timeout 240 hyperfine -N --warmup 5 --runs "$STARTUP_RUNS" --style none --export-json "$res/startup.json" \
    -n "pb paste" "$bin/pb paste" \
    -n "xclip -o -selection clipboard" "xclip -o -selection clipboard" \
    -n "xsel -b -o" "xsel -b -o" >/dev/null
else
  echo "bash loop with date +%s%N" >"$res/startup.tool"
  for c in "$bin/pb paste" "xclip -o -selection clipboard" "xsel -b -o"; do
    name=${c#"$bin/"}
    for i in $(seq 1 5); do $c >/dev/null; done
    for i in $(seq 1 "$STARTUP_RUNS"); do
      t0=$(date +%s%N); $c >/dev/null; echo $(( $(date +%s%N) - t0 ))
    done >"$res/startup.loop.${name%% *}"
  done
fi

# ---------------------------------------------------------------------------------------------------
# 3: idle cost while owning CLIPBOARD and nobody pastes. pasteboardd on display A, a foreground
# xclip on display B, side by side: one window of /proc counters, then one window under strace -c.

note "idle: 2 windows of ${IDLE_SECONDS}s"
start_owner "$DISPLAY_B" "$small" xclip -i -quiet -selection clipboard
XCLIP_IDLE=$OWNER_PID
sleep 1

idle_sample() { # pid -> "cpu-ticks context-switches"
  local ticks switches
  ticks=$(sed 's/^.*) //' "/proc/$1/stat" | awk '{print $12 + $13}')
  switches=$(cat /proc/"$1"/task/*/status | awk '/^(non)?voluntary_ctxt_switches:/ {s += $2} END {print s}')
  echo "$ticks $switches"
}
for who in pasteboardd xclip; do
  pid=$PBD_PID; [ "$who" = xclip ] && pid=$XCLIP_IDLE
  echo "$(idle_sample "$pid")" >"$res/idle.$who.before"
done
sleep "$IDLE_SECONDS"
for who in pasteboardd xclip; do
  pid=$PBD_PID; [ "$who" = xclip ] && pid=$XCLIP_IDLE
  echo "$(idle_sample "$pid")" >"$res/idle.$who.after"
  proc_mem "$pid" >"$res/idle.$who.mem"
  ls /proc/"$pid"/task | wc -l >"$res/idle.$who.threads"
done
echo "$(getconf CLK_TCK)" >"$res/clk_tck"

if command -v strace >/dev/null; then
  spids=()
  for who in pasteboardd xclip; do
    pid=$PBD_PID; [ "$who" = xclip ] && pid=$XCLIP_IDLE
    timeout -s INT "$IDLE_SECONDS" strace -c -f -p "$pid" -o "$res/strace.$who" 2>"$res/strace.$who.err" &
    spids+=($!)
    PIDS+=($!)
  done
  for p in "${spids[@]}"; do wait "$p" || true; forget "$p"; done
else
  echo "strace is not installed" >"$res/strace.pasteboardd.err"
fi
stop_owner "$XCLIP_IDLE" "$DISPLAY_B"
stop_owner "$PBD_PID" "$DISPLAY_A"

# ---------------------------------------------------------------------------------------------------
# Report

built=$(date -u -r "$bin/pasteboardd" '+%Y-%m-%d %H:%M UTC')
cpu_model=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
mkdir -p "$(dirname "$OUT")"
RES="$res" BULK_MIB="$BULK_MIB" REPS="$REPS" ROUNDTRIPS="$ROUNDTRIPS" IDLE_SECONDS="$IDLE_SECONDS" \
STARTUP_RUNS="$STARTUP_RUNS" PB_BUILT="$built" SHA_BIN="$sha_bin" SHA_TEXT="$sha_text" CPU_MODEL="$cpu_model" \
NPROC="$(nproc)" LOADAVG="$(cut -d' ' -f1-3 /proc/loadavg)" KERNEL="$(uname -r)" \
XVFB_VERSION="$(dpkg-query -W -f='${Version}' xvfb 2>/dev/null || echo '?')" \
XCLIP_VERSION="$(xclip -version 2>&1 | awk '{print $3; exit}')" \
XSEL_VERSION="$(xsel --version 2>&1 | awk '{print $3; exit}')" \
PB_VERSION="$("$bin/pb" --version 2>/dev/null || echo '?')" \
PB_TREE="$(git -C "$here/.." log -1 --format=%h 2>/dev/null || echo '?')$(git -C "$here/.." diff --quiet HEAD -- Sources Package.swift 2>/dev/null || echo ' with uncommitted Sources changes')" \
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
  f"Xvfb {os.environ['XVFB_VERSION']} over a local socket; load average at the end {os.environ['LOADAVG']}. "
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

# 3. Idle
secs = int(os.environ["IDLE_SECONDS"])
tck = int(text("clk_tck", "100"))
p(f"## 3. Idle cost over {secs} s, owning CLIPBOARD, nobody pasting")
p("")
p("pasteboardd (a short text copied with `pb copy`) and a foreground `xclip -i -quiet` (the same text, on a "
  "second Xvfb) side by side. CPU from /proc/PID/stat utime+stime "
  f"(resolution {1000 // tck} ms); wakeups = voluntary + nonvoluntary context switches summed over "
  "/proc/PID/task/*/status; both over one window. Syscalls from `strace -c -f -p PID` over a second window "
  "of the same length (strace's attach interrupts the blocked poll once: that shows as `restart_syscall`). "
  "RSS = VmRSS, PSS = Pss from /proc/PID/smaps_rollup, at the end of the first window.")
p("")
idle = {}
for o in ("pasteboardd", "xclip"):
    b, a = text(f"idle.{o}.before").split(), text(f"idle.{o}.after").split()
    m = text(f"idle.{o}.mem").split()
    d = {"cpu": None, "wake": None, "rss": None, "pss": None, "sys": None, "sysnames": "", "threads": text(f"idle.{o}.threads", "?")}
    if len(a) == 2 and len(b) == 2:
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
        d["sysnames"] = ", ".join(names) or "none"
    else:
        err = text(f"strace.{o}.err")
        d["sysnames"] = "strace failed: " + (err.splitlines()[-1] if err else "no output")
    idle[o] = d
p("| owner | CPU s | wakeups | syscalls (which) | RSS MiB | PSS MiB | threads |")
p("|---|---|---|---|---|---|---|")
for o in ("pasteboardd", "xclip"):
    d = idle[o]
    sysf = "n/a" if d["sys"] is None else str(d["sys"])
    p(f"| {o} | {f(d['cpu'], 2)} | {f(d['wake'])} | {sysf} ({d['sysnames']}) | {f(d['rss'], 1)} | {f(d['pss'], 1)} | {d['threads']} |")
pi, xi = idle["pasteboardd"], idle["xclip"]
p("")
p(f"pasteboardd vs xclip: CPU {f(pi['cpu'], 2)} s vs {f(xi['cpu'], 2)} s; wakeups {f(pi['wake'])} vs {f(xi['wake'])}; "
  f"RSS {f(pi['rss'], 1)} MiB vs {f(xi['rss'], 1)} MiB, ratio {ratio(pi['rss'], xi['rss'], True)}; "
  f"PSS {f(pi['pss'], 1)} MiB vs {f(xi['pss'], 1)} MiB, ratio {ratio(pi['pss'], xi['pss'], True)}.")
p("")

# 4. Start-up
p("## 4. Paste command start-up")
p("")
tool = text("startup.tool")
p(f"Each command spawned {os.environ['STARTUP_RUNS']} times ({tool}{', `-N --warmup 5`' if tool == 'hyperfine' else ''}), "
  "pasteboardd owning the short text; every command pastes it (checked once before timing).")
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

# Aims
p("## Aims")
p("")
p("| aim | measured in this run | met |")
p("|---|---|---|")
def yn(c):
    return "n/a" if c is None else ("yes" if c else "**no**")
p(f"| small-paste round trip no slower than xclip's | pasteboardd {f(pm)} µs, xclip {f(xm)} µs ({ratio(pm, xm, True)}) | "
  f"{yn(None if pm is None or xm is None else pm <= xm)} |")
pbm, xcm = (pb_bin or {}).get("mibs"), (xc_bin or {}).get("mibs")
p(f"| {mib} MiB paste at least 2× xclip's throughput | pasteboardd {f(pbm)} MiB/s, xclip {f(xcm)} MiB/s "
  f"({ratio(pbm, xcm, False)}) | {yn(None if pbm is None or xcm is None else pbm >= 2 * xcm)} |")
p(f"| zero wakeups when idle | {f(pi['wake'])} context switches, {f(pi['cpu'], 2)} CPU s in {secs} s "
  f"(strace: {'n/a' if pi['sys'] is None else pi['sys']} syscalls) | {yn(None if pi['wake'] is None else pi['wake'] == 0)} |")
p(f"| RSS under 10 MiB | {f(pi['rss'], 1)} MiB idle | {yn(None if pi['rss'] is None else pi['rss'] < 10)} |")
p("")
print("\n".join(out))
PY
note "report written to $OUT"
