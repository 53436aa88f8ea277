#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Pictures: pasteboard's conversions next to ImageMagick's `convert` and PIL on the same files, and the first
# paste of a derived type from pasteboardd end to end with the daemon's peak memory.
#
#   bench/images.sh BIN_DIR [RUNS]
#
# Generates a deterministic 3840 × 2160 screenshot (bench/tools/gen-screenshot.py: windows, text, a code
# editor, a photograph-like region) as PNG and as JPEG (quality 90). Times PNG → JPEG, → BMP, → WebP and
# JPEG → PNG with `pb convert` (the real CLI, process start included), ImageMagick `convert` (with the same
# JPEG settings: quality 90, 4:4:4; lossless WebP as pb writes it from a PNG) and PIL (inside one Python
# process, after the import: the codec's time alone, which flatters PIL). Then starts a private Xvfb and
# pasteboardd, copies each source with `pb copy FILE`, and times `xclip -o -t TYPE` of each derived type: the
# first paste (the daemon converts) and the second (from the cache), with pasteboardd's VmHWM over the first
# (reset through /proc/PID/clear_refs) less its VmRSS before, a fresh pasteboardd for each paste. Prints
# markdown. About 2 minutes.
#
# Knobs: RUNS (the second argument, 5). Needs python3 with PIL, xvfb, xclip; ImageMagick is reported n/a if
# missing. Use release binaries.
set -euo pipefail

BIN=${1:?usage: bench/images.sh BIN_DIR [RUNS]}
RUNS=${2:-${RUNS:-5}}
PB="$BIN/pb"
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pb-images.XXXXXX")
XVFB_PID=""; PBD_PID=""
cleanup() {
  [[ -n $PBD_PID ]] && kill "$PBD_PID" 2>/dev/null && wait "$PBD_PID" 2>/dev/null || true
  [[ -n $XVFB_PID ]] && kill "$XVFB_PID" 2>/dev/null && wait "$XVFB_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
have() { command -v "$1" > /dev/null 2>&1; }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2))}'; }
now_us() { echo $(( $(date +%s%N) / 1000 )); }

/usr/bin/python3 "$HERE/tools/gen-screenshot.py" "$WORK/shot.png" "$WORK/shot.jpg"
size() { wc -c < "$1"; }
kib() { echo $(( $(size "$1") / 1024 )); }

# time_ms RUNS COMMAND...: the median wall time in ms of RUNS runs (output discarded), or "failed".
time_ms() {
  local runs=$1; shift
  local times=() t0
  for ((i = 0; i < runs; i++)); do
    t0=$(now_us)
    "$@" > /dev/null 2> "$WORK/stderr" || { echo failed; return; }
    times+=($(( ($(now_us) - t0) / 1000 )))
  done
  median "${times[@]}"
}

pil() { # FROM TO OUT: PIL's median in-process time in ms, after the import
/usr/bin/python3 - "$1" "$2" "$3" "$RUNS" <<'PY'
import statistics, sys, time
from PIL import Image
source, target, out, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
times = []
for _ in range(runs):
    t0 = time.perf_counter()
    image = Image.open(source)
    image.load()
    if target == "jpeg":
        image.convert("RGB").save(out, "JPEG", quality=90, subsampling=0)
    elif target == "bmp":
        image.convert("RGB").save(out, "BMP")
    elif target == "webp":
        image.save(out, "WEBP", lossless=True)
    else:
        image.save(out, "PNG")
    times.append((time.perf_counter() - t0) * 1000)
print(int(statistics.median(times)))
PY
}

ratio() { [[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ && $1 -gt 0 ]] && awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f×", a / b}' || echo "–"; }

echo "pb: $PB ($("$PB" --version))$(have convert && echo "; $(convert -version | head -1 | sed 's/^Version: //')"); PIL $(/usr/bin/python3 -c 'import PIL; print(PIL.__version__)')"
echo "Load average at the start: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs. Medians of $RUNS runs."
echo
echo "### Conversions of a 3840 × 2160 screenshot (PNG $(kib "$WORK/shot.png") KiB, JPEG $(kib "$WORK/shot.jpg") KiB)"
echo
echo "| conversion | pb ms | output KiB | ImageMagick ms | output KiB | pb ÷ ImageMagick | PIL ms (in-process) | output KiB | pb ÷ PIL |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
row() { # LABEL SOURCE TARGET-EXT IM-ARGS...
  local label=$1 source=$2 ext=$3; shift 3
  local pb_ms im_ms pil_ms
  pb_ms=$(time_ms "$RUNS" "$PB" convert --to "$ext" -o "$WORK/pb.$ext" "$source")
  im_ms=n/a; im_kib=n/a
  if have convert; then
    im_ms=$(time_ms "$RUNS" convert "$source" "$@" "$WORK/im.$ext")
    im_kib=$(kib "$WORK/im.$ext")
  fi
  pil_ms=$(pil "$source" "$ext" "$WORK/pil.$ext")
  echo "| $label | $pb_ms | $(kib "$WORK/pb.$ext") | $im_ms | $im_kib | $(ratio "$pb_ms" "$im_ms") | $pil_ms | $(kib "$WORK/pil.$ext") | $(ratio "$pb_ms" "$pil_ms") |"
}
row "PNG → JPEG (q 90, 4:4:4)" "$WORK/shot.png" jpeg -quality 90 -sampling-factor 4:4:4
row "PNG → BMP (24-bit)" "$WORK/shot.png" bmp -type TrueColor
row "PNG → WebP (lossless)" "$WORK/shot.png" webp -define webp:lossless=true
row "JPEG → PNG" "$WORK/shot.jpg" png
echo

# --- The first paste of a derived type, end to end, and the daemon's memory -------------------------
exec 3< <(Xvfb -displayfd 1 -nolisten tcp -noreset 2>/dev/null & echo "pid $!")
read -r _ XVFB_PID <&3; read -r display <&3
export DISPLAY=":$display"
export HOME="$WORK/home" XDG_RUNTIME_DIR="$WORK/run" XDG_CONFIG_HOME="$WORK/config" XDG_STATE_HOME="$WORK/state"
mkdir -p "$HOME" "$XDG_RUNTIME_DIR" "$XDG_CONFIG_HOME" "$XDG_STATE_HOME"; chmod 700 "$XDG_RUNTIME_DIR"
start_daemon() { # a fresh pasteboardd, so that its peak memory is this paste's alone
  [[ -n $PBD_PID ]] && kill "$PBD_PID" 2>/dev/null && wait "$PBD_PID" 2>/dev/null || true
  rm -rf "$XDG_STATE_HOME/pasteboard"
  "$BIN/pasteboardd" 2>> "$WORK/pasteboardd.log" &
  PBD_PID=$!
  for _ in $(seq 200); do "$PB" status > /dev/null 2>&1 && return; sleep 0.05; done
  echo "pasteboardd did not start: $(tail -3 "$WORK/pasteboardd.log")"; exit 1
}
kb() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }

decoded_kib=$(( 3840 * 2160 * 4 / 1024 ))
echo "### The first paste of a derived type from pasteboardd (xclip -o through X, INCR), medians of $RUNS"
echo
echo "Decoded picture: $decoded_kib KiB. Peak = pasteboardd's VmHWM during the first paste less its VmRSS before it (the copy already held); the aim is under 2 × decoded + source."
echo
echo "| source → type | first paste ms | second paste (cached) ms | output KiB | peak over RSS KiB | 2 × decoded + source KiB | within |"
echo "|---|---:|---:|---:|---:|---:|---|"
paste_row() { # SOURCE TYPE
  local firsts=() seconds=() peaks=() t0 before peak
  for ((i = 0; i < RUNS; i++)); do
    start_daemon
    "$PB" copy "$1"
    "$PB" paste -t "$(file_type "$1")" > /dev/null   # the copy is held and answered
    before=$(kb "$PBD_PID" VmRSS)
    echo 5 > "/proc/$PBD_PID/clear_refs"
    t0=$(now_us)
    xclip -o -selection clipboard -t "$2" > "$WORK/pasted"
    firsts+=($(( ($(now_us) - t0) / 1000 )))
    peak=$(kb "$PBD_PID" VmHWM)
    peaks+=($(( peak - before )))
    t0=$(now_us)
    xclip -o -selection clipboard -t "$2" > /dev/null
    seconds+=($(( ($(now_us) - t0) / 1000 )))
  done
  local limit=$(( 2 * decoded_kib + $(kib "$1") )) p
  p=$(median "${peaks[@]}")
  echo "| $(basename "$1" | sed 's/shot\.//') → $2 | $(median "${firsts[@]}") | $(median "${seconds[@]}") | $(kib "$WORK/pasted") | $p | $limit | $([[ $p -lt $limit ]] && echo yes || echo "**no**") |"
}
file_type() { case $1 in *.png) echo image/png ;; *.jpg) echo image/jpeg ;; esac; }
paste_row "$WORK/shot.png" image/jpeg
paste_row "$WORK/shot.png" image/bmp
paste_row "$WORK/shot.png" image/webp
paste_row "$WORK/shot.png" image/tiff
paste_row "$WORK/shot.jpg" image/png
echo
echo "Load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
