#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Conversion throughput of `pb convert` next to unrtf and pandoc on the same generated inputs.
#
#   bench/convert.sh PB_BINARY [RUNS]
#
# Generates RTF documents deterministically (Word-style header, font and colour tables, mixed
# formatting, \'hh and \uN characters, hyperlink fields, tables and lists): one of CONVERT_MIB (10) MiB
# for pb and unrtf, and one of PANDOC_MIB (1) MiB for pandoc and pb side by side (pandoc needs about
# 4 s per MiB of RTF here, so the large one would take minutes per run). Times RTF→txt, RTF→HTML,
# HTML→RTF, RTF→RTFD (write) and RTFD→txt (read) with `pb convert`, RTF→txt/HTML with `unrtf
# --text`/`--html` and RTF→txt/HTML, HTML→RTF with `pandoc`. Prints markdown tables of median wall
# and CPU times and their ratios; a missing unrtf or pandoc is reported as n/a. About 3 minutes.
#
# Knobs (environment): RUNS (the second argument, 3), SLOW_RUNS (3, pandoc's runs), CONVERT_MIB (10),
# PANDOC_MIB (1), TIMEOUT (300 s per command). Needs python3 (generator). Use a release build of pb.
set -euo pipefail

PB=${1:?usage: bench/convert.sh PB_BINARY [RUNS]}
RUNS=${2:-${RUNS:-3}}
SLOW_RUNS=${SLOW_RUNS:-3}
CONVERT_MIB=${CONVERT_MIB:-10}
PANDOC_MIB=${PANDOC_MIB:-1}
TIMEOUT=${TIMEOUT:-300}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pb-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

gen_rtf() { # OUT MIB
python3 - "$1" "$2" <<'PY'
import sys
# Deterministic linear congruential generator: the same document on every machine.
state = 20240601
def rnd(n):
    global state
    state = (state * 1103515245 + 12345) & 0x7FFFFFFF
    return state % n
words = ("the quick brown fox jumps over lazy dog clipboard paste copy rich text format daemon selection "
         "owner request target property window atom incremental transfer").split()
special = [r"caf\'e9", r"na\'efve", r"\u8364?", r"\u26085?\u26412?", r"\emdash ", r"\ldblquote quoted\rdblquote ",
           r"\u-10179?\u-8704?", r"\'93smart\'94", r"\{braces\}", r"back\\slash"]
out = [r"{\rtf1\ansi\ansicpg1252\deff0\uc1{\fonttbl{\f0\froman\fcharset0 Times New Roman;}{\f1\fswiss\fcharset0 Arial;}"
       r"{\f2\fmodern\fcharset0 Courier New;}{\f3\fnil\fcharset128 MS Gothic;}}"
       r"{\colortbl;\red0\green0\blue0;\red200\green0\blue0;\red0\green100\blue200;}"
       r"{\*\generator bench;}{\info{\title Bench}}" "\n"]
size = 0
target = int(sys.argv[2]) * 1024 * 1024
paragraph = 0
while size < target:
    paragraph += 1
    parts = []
    if paragraph % 50 == 0:
        row = r"\trowd\cellx2000\cellx4000\cellx6000 " + "".join(r"\pard\intbl %s %d\cell " % (words[rnd(len(words))], c) for c in range(3)) + r"\row" "\n"
        parts.append(row + r"\pard ")
    elif paragraph % 17 == 0:
        parts.append(r"\pard\fi-360\li720\ls1\ilvl0{\listtext \'95\tab}")
    else:
        parts.append(r"\pard\plain\f%d\fs%d\sa120 " % (rnd(3), 20 + 2 * rnd(6)))
    for _ in range(40 + rnd(40)):
        k = rnd(100)
        w = words[rnd(len(words))]
        if k < 8:
            parts.append(r"{\b %s} " % w)
        elif k < 14:
            parts.append(r"{\i\cf2 %s} " % w)
        elif k < 17:
            parts.append(r"{\ul\cf3 %s} " % w)
        elif k < 20:
            parts.append(special[rnd(len(special))] + " ")
        elif k < 21:
            parts.append(r'{\field{\*\fldinst{HYPERLINK "https://example.org/%d?a=1&b=2"}}{\fldrslt{\ul %s}}} ' % (rnd(1000), w))
        elif k < 22:
            parts.append(r"{\f3 \'82\'a0\'83\'5c\'95\\} ")
        else:
            parts.append(w + " ")
    parts.append(r"\par" "\n")
    chunk = "".join(parts)
    out.append(chunk)
    size += len(chunk)
out.append("}\n")
open(sys.argv[1], "w", encoding="ascii").write("".join(out))
PY
}
gen_rtf "$WORK/in.rtf" "$CONVERT_MIB"
gen_rtf "$WORK/small.rtf" "$PANDOC_MIB"

# median_ms RUNS COMMAND... : runs the command (stdout discarded) RUNS times and prints "WALL/CPU": the
# median wall time and the median CPU time (user + system, the command and its children) in ms, or
# "failed"/"timeout". CPU time is what to compare on a loaded machine: wall time there includes waiting.
median_ms() {
    local runs=$1; shift
    local walls=() cpus=() status r u s TIMEFORMAT='%3R %3U %3S'
    for ((i = 0; i < runs; i++)); do
        set +e
        { time timeout "$TIMEOUT" "$@" > /dev/null 2> "$WORK/stderr"; } 2> "$WORK/time"
        status=$?
        set -e
        if [[ $status -eq 124 ]]; then echo timeout; return; fi
        if [[ $status -ne 0 ]]; then echo failed; return; fi
        read -r r u s < <(tail -1 "$WORK/time")
        walls+=("$(awk -v r="$r" 'BEGIN {printf "%d", r * 1000}')")
        cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN {printf "%d", (u + s) * 1000}')")
    done
    echo "$(median "${walls[@]}")/$(median "${cpus[@]}")"
}
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2))}'; }

have() { command -v "$1" > /dev/null 2>&1; }
# cell "WALL/CPU" -> "WALL (CPU)"; ratio PB OTHER -> "W× (CPU C×)", how many times longer OTHER took.
cell() { [[ $1 =~ ^[0-9]+/[0-9]+$ ]] && echo "${1%/*} (${1#*/})" || echo "$1"; }
ratio() {
    [[ $1 =~ ^[0-9]+/[0-9]+$ && $2 =~ ^[0-9]+/[0-9]+$ ]] || { echo "–"; return; }
    awk -v aw="${1%/*}" -v ac="${1#*/}" -v bw="${2%/*}" -v bc="${2#*/}" \
        'BEGIN {w = "–"; c = "–"; if (aw > 0) w = sprintf("%.1f×", bw / aw); if (ac > 0) c = sprintf("%.1f×", bc / ac); printf "%s (CPU %s)", w, c}'
}

# Inputs for the other directions, made by pb once (not timed).
"$PB" convert --from rtf --to html < "$WORK/in.rtf" > "$WORK/in.html"
"$PB" convert --from rtf --to rtfd < "$WORK/in.rtf" > "$WORK/in.rtfd"
"$PB" convert --from rtf --to html < "$WORK/small.rtf" > "$WORK/small.html"

kib() { echo $(( $(wc -c < "$1") / 1024 )); }
pbc() { # runs from to input -> median ms of `pb convert`
  median_ms "$1" sh -c "\"\$0\" convert --from $2 --to $3 < \"\$1\"" "$PB" "$4"
}
echo "pb: $PB ($("$PB" --version 2>/dev/null || echo '?'))$(have unrtf && echo "; $(unrtf --version 2>&1 | head -1 | sed 's/^/unrtf /')")$(have pandoc && echo "; $(pandoc --version | head -1)")"
echo "Load average at the start: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs."
echo

pb_txt=$(pbc "$RUNS" rtf txt "$WORK/in.rtf")
pb_html=$(pbc "$RUNS" rtf html "$WORK/in.rtf")
pb_h2r=$(pbc "$RUNS" html rtf "$WORK/in.html")
pb_rtfdw=$(pbc "$RUNS" rtf rtfd "$WORK/in.rtf")
pb_rtfdr=$(pbc "$RUNS" rtfd txt "$WORK/in.rtfd")
un_txt=n/a; un_html=n/a
if have unrtf; then
  # unrtf writes pictures into the working directory: run it in a scratch directory.
  mkdir -p "$WORK/unrtf" && cd "$WORK/unrtf"
  un_txt=$(median_ms "$RUNS" unrtf --text "$WORK/in.rtf")
  un_html=$(median_ms "$RUNS" unrtf --html "$WORK/in.rtf")
  cd - > /dev/null
fi

echo "### ${CONVERT_MIB} MiB RTF ($(kib "$WORK/in.rtf") KiB; its HTML $(kib "$WORK/in.html") KiB): pb and unrtf, median of $RUNS runs"
echo
echo "| conversion | pb wall (CPU) ms | unrtf wall (CPU) ms | unrtf ÷ pb |"
echo "|---|---:|---:|---:|"
echo "| RTF → txt | $(cell "$pb_txt") | $(cell "$un_txt") | $(ratio "$pb_txt" "$un_txt") |"
echo "| RTF → HTML | $(cell "$pb_html") | $(cell "$un_html") | $(ratio "$pb_html" "$un_html") |"
echo "| HTML → RTF | $(cell "$pb_h2r") | – | – |"
echo "| RTF → RTFD (write) | $(cell "$pb_rtfdw") | – | – |"
echo "| RTFD → txt (read) | $(cell "$pb_rtfdr") | – | – |"
echo

sp_txt=$(pbc "$RUNS" rtf txt "$WORK/small.rtf")
sp_html=$(pbc "$RUNS" rtf html "$WORK/small.rtf")
sp_h2r=$(pbc "$RUNS" html rtf "$WORK/small.html")
pd_txt=n/a; pd_html=n/a; pd_h2r=n/a
if have pandoc; then
  pd_txt=$(median_ms "$SLOW_RUNS" pandoc -f rtf -t plain "$WORK/small.rtf")
  pd_html=$(median_ms "$SLOW_RUNS" pandoc -f rtf -t html "$WORK/small.rtf")
  pd_h2r=$(median_ms "$SLOW_RUNS" pandoc -f html -t rtf "$WORK/small.html")
fi
echo "### ${PANDOC_MIB} MiB RTF ($(kib "$WORK/small.rtf") KiB; its HTML $(kib "$WORK/small.html") KiB): pb (median of $RUNS) and pandoc (median of $SLOW_RUNS)"
echo
echo "| conversion | pb wall (CPU) ms | pandoc wall (CPU) ms | pandoc ÷ pb |"
echo "|---|---:|---:|---:|"
echo "| RTF → txt | $(cell "$sp_txt") | $(cell "$pd_txt") | $(ratio "$sp_txt" "$pd_txt") |"
echo "| RTF → HTML | $(cell "$sp_html") | $(cell "$pd_html") | $(ratio "$sp_html" "$pd_html") |"
echo "| HTML → RTF | $(cell "$sp_h2r") | $(cell "$pd_h2r") | $(ratio "$sp_h2r" "$pd_h2r") |"
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
