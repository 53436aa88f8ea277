#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""One pasteboard across two X displays, measured side by side with a paste on one display, in one run.

    bench/displays.py BIN_DIR [--reps N] [--small N] [--mib M]

Starts two private Xvfb servers (A and B) and pasteboardd serving both (`--display A --display B`). Each
measurement is the first paste of a fresh copy (a second paste on B is answered from what B fetched, at
same-display speed): xclip owns CLIPBOARD on A with a target named for that copy, and once B lists it, the
bench's requestor (bench/tools/requestor.c: one conversion, INCR handled, CLOCK_MONOTONIC in-process) reads
it on B — through pasteboardd, which fetches it from xclip on A — and then on A straight from xclip, the
anchor. Small: N copies of one line (the median of each, in µs), read once with one conversion and once asking
TARGETS first, as toolkits do (Qt, Chromium, Firefox; the time of both conversions). Bulk: M MiB of random bytes, REPS copies
(the median MiB/s); and for each copy the time from xclip -i to the first paste on the other display that
gives its bytes. A third size, the largest xclip sends in one property (no INCR), is the largest xclip copy
Xpra carries. The anchor for crossing displays is Xpra's clipboard sync (Debian's xpra, installed by
deps-bench): `xpra start` on a third Xvfb (C, `--use-display`), `xpra attach` from a fourth (D) over a local
socket, the same copies made on C and read on D. Where Xpra does not deliver a copy, its cell says why, from
xpra's own log (a refusal) or the bench's timeout (a failure). Prints markdown.
"""
import collections
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "tools"))
import pastebench  # noqa: E402
from pastebench import PasteBench  # noqa: E402


# Xpra's server drops the clipboard packets it would send beyond 30 a second (XPRA_CLIPBOARD_LIMIT; "Warning: more
# than 30 clipboard requests per second!"), and a measured copy makes about six (a token each for the marker, its
# owner's exit, the copy and its owner's exit, and an answer to each paste, more when a paste comes between two
# owners): so that the bench never meets that valve, it waits 50 ms between pastes that did not give a copy yet,
# and starts a copy 500 ms after the previous one at the earliest (neither wait is in the figures).
XPRA_PAUSE, XPRA_SPACING = 0.05, 0.5


class Bench(PasteBench):
    def __init__(self, bin_dir):
        super().__init__(bin_dir, "pb-displays.")

    def env(self, display):
        env = dict(os.environ, DISPLAY=display, XDG_RUNTIME_DIR=os.path.join(self.work, "run"),
                   XDG_STATE_HOME=os.path.join(self.work, "state"), XDG_CONFIG_HOME=os.path.join(self.work, "config"))
        for key in ("NOTIFY_SOCKET", "JOURNAL_STREAM"):
            env.pop(key, None)
        return env

    def daemon(self, displays):
        for sub in ("run", "state", "config"):
            os.makedirs(os.path.join(self.work, sub), mode=0o700, exist_ok=True)
        arguments = [os.path.join(self.bin, "pasteboardd")]
        for display in displays:
            arguments += ["--display", display]
        process = self.start(arguments, env=self.env(displays[0]), stderr=subprocess.DEVNULL)
        self.wait(lambda: subprocess.run([os.path.join(self.bin, "pb"), "displays"], env=self.env(displays[0]),
                                         capture_output=True).stdout.count(b"\tconnected") == len(displays), "the daemon")
        return process

    def xpra(self):
        """Two more Xvfbs joined by Xpra (server on C, client attached on D), once a copy on C pastes on D; returns
        (C, D, XpraLogs)."""
        c, d = self.xvfb(), self.xvfb()
        runtime = os.path.join(self.work, "xpra")
        os.makedirs(runtime, mode=0o700, exist_ok=True)
        socket_path = os.path.join(runtime, "sock")
        # Debian's xpra runs on the system Python: a Python earlier on $PATH (pyenv) cannot import it.
        env = dict(os.environ, XDG_RUNTIME_DIR=runtime, HOME=runtime, PATH="/usr/bin:/bin:" + os.environ.get("PATH", ""))
        quiet = ["--mdns=no", "--notifications=no", "--speaker=off", "--microphone=off", "--webcam=no", "--printing=no",
                 "--file-transfer=no"]
        self.start(["/usr/bin/xpra", "start", c, "--use-display=yes", "--daemon=no", f"--bind={socket_path}", "--pulseaudio=no",
                    "--dbus-proxy=no", "--dbus-control=no", "--systemd-run=no", "--html=off"] + quiet,
                   env=dict(env, DISPLAY=c), stdout=subprocess.DEVNULL, stderr=open(os.path.join(runtime, "server.log"), "wb"))
        self.wait(lambda: os.path.exists(socket_path), "the xpra server's socket", timeout=60)
        self.start(["/usr/bin/xpra", "attach", f"socket:{socket_path}", "--tray=no", "--system-tray=no"] + quiet,
                   env=dict(env, DISPLAY=d), stdout=subprocess.DEVNULL, stderr=open(os.path.join(runtime, "client.log"), "wb"))
        # The client attaches in its own time: copy a probe again every second until D has it.
        deadline = time.monotonic() + 60
        for attempt in range(60):
            probe = self.fresh_copy(c, "UTF8_STRING", f"xpra probe {attempt}".encode())
            try:
                self.wait(lambda: subprocess.run(["xclip", "-o", "-selection", "clipboard"], env=self.env(d), capture_output=True)
                          .stdout == f"xpra probe {attempt}".encode(), "xpra's clipboard sync", timeout=1, pause=XPRA_PAUSE)
                self.stop(probe)
                return c, d, XpraLogs([os.path.join(runtime, "server.log"), os.path.join(runtime, "client.log")])
            except SystemExit:
                self.stop(probe)
                if time.monotonic() > deadline:
                    break
        raise SystemExit("bench: xpra's clipboard sync did not start within 60 s")

    def stated_size_copy(self, c, d, payload):
        """Whether `payload` pastes on D when its owner on C gives the INCR transfer's size, as ICCCM asks (xclip
        gives none): bench/tools/owner.c owns CLIPBOARD on C with it (application/octet-stream, 1 MiB chunks) and the
        requestor reads it on D."""
        owner = os.path.join(self.work, "owner")
        if not os.path.exists(owner):
            flags = subprocess.run(["pkg-config", "--cflags", "--libs", "x11", "xfixes"], capture_output=True, text=True,
                                   check=True).stdout.split()
            subprocess.run(["cc", "-O2", "-o", owner, os.path.join(HERE, "tools", "owner.c")] + flags, check=True)
        source, pasted = os.path.join(self.work, "stated-size"), os.path.join(self.work, "stated-size-pasted")
        with open(source, "wb") as f:
            f.write(payload)
        subprocess.run([owner, "html", source, "env", f"DISPLAY={d}", self.requestor, "bulk", "application/octet-stream", pasted],
                       env=dict(self.env(c), PB_OWNER_TYPE="application/octet-stream"), capture_output=True, timeout=120)
        try:
            with open(pasted, "rb") as f:
                return f.read() == payload
        except FileNotFoundError:
            return False


class XpraLogs:
    """Xpra's server and client logs (their stderr; the client's lines are also forwarded to the server's), read
    from a mark: what xpra said during one measurement."""

    PREFIX = re.compile(r"^\d{4}-\d\d-\d\d [\d:,]+ (client +\d+ @[\d.]+ )?")

    def __init__(self, paths):
        self.paths = paths
        self.mark()

    def mark(self):
        self.offsets = {path: os.path.getsize(path) if os.path.exists(path) else 0 for path in self.paths}

    def lines(self, path):
        with open(path, "rb") as f:
            f.seek(self.offsets[path])
            return [self.PREFIX.sub("", line) for line in f.read().decode(errors="replace").splitlines()]

    def said(self):
        """What xpra said since the mark of a copy it dropped, in its own words, each thing once (with how many times,
        when more than once): a traceback as its last frame and its exception, a warning or an error with its
        indented continuation lines (request numbers as N); the causes first (tracebacks, the contents-too-big
        warning), then the rest (the timeouts that follow from them). A client line forwarded to the server's log
        counts once."""
        counts = {}
        for path in self.paths:
            for thing, count in collections.Counter(self.things(self.lines(path))).items():
                counts[thing] = max(count, counts.get(thing, 0))
        said = [f"{thing} (×{count})" if count > 1 else thing for thing, count in counts.items()]
        return sorted(said, key=lambda thing: not ("→" in thing or "too big" in thing))

    @staticmethod
    def things(lines):
        """The tracebacks, warnings and errors in `lines`, one string each, in order."""
        things, i = [], 0
        while i < len(lines):
            line, i = lines[i], i + 1
            if line.startswith("Traceback (most recent call last):"):
                frame = ""
                while i < len(lines) and lines[i].startswith(" "):
                    location = re.search(r'File ".*?(xpra/[^"]+)", line (\d+), in (\S+)', lines[i])
                    if location:
                        frame = f"{location[1]} line {location[2]} in {location[3]}"
                    elif lines[i].strip(" ^~"):  # the frame's source line, not the carets under it
                        frame += ": " + lines[i].strip()
                    i += 1
                thing = f"{frame} → {lines[i].strip()}" if i < len(lines) else frame
                i += 1
            elif line.startswith(("Warning: ", "Error: ")) and "running as root" not in line:
                thing = line.strip()
                while i < len(lines) and lines[i].startswith(" ") and not lines[i].lstrip().startswith("File "):
                    thing += " " + lines[i].strip()
                    i += 1
            else:
                continue
            things.append(re.sub(r"request (id )?\d+", r"request \1N", thing))
        return things


class Undelivered:
    """An Xpra row without figures: its cell (the first cause) and its note (everything xpra said)."""

    def __init__(self, cell, note=""):
        self.cell, self.note = cell, note


def quoted(said):
    return "; ".join(f"“{thing}”" for thing in said)


def xpra_row(logs, measurement, explain=lambda: ""):
    """One row's Xpra figures — `measurement()`'s dict, with a "note" quoting any warning xpra logged meanwhile — or,
    when the measurement fails, an Undelivered: "Xpra refuses: …" with the first cause xpra logged (the note: the
    bench's failure, all xpra said, and what `explain()` adds), or "Xpra failed: …" with the bench's failure when
    xpra said nothing."""
    logs.mark()
    try:
        figures = measurement()
    except SystemExit as failure:
        failure = str(failure).removeprefix("bench: ")
        said = logs.said()
        if not said:
            return Undelivered("Xpra failed: " + failure)
        return Undelivered(f"Xpra refuses: {quoted(said[:1])}", f"{failure}; xpra logged {quoted(said)}.{explain()}")
    said = logs.said()
    return dict(figures, note=f"xpra logged {quoted(said)} during these copies." if said else "")


def main():
    options = pastebench.options()
    bench = Bench(options.bin)
    load = [os.getloadavg()]
    try:
        a, b = bench.xvfb(), bench.xvfb()
        bench.daemon([a, b])
        payload = os.urandom(options.mib << 20)
        # xclip sends a value of more than XExtendedMaxRequestSize/4 bytes by INCR: 1 MiB − 1 byte is the
        # largest it sends in one property on Xvfb (BIG-REQUESTS: 4,194,303 units of 4 bytes).
        one_property = payload[:(1 << 20) - 1]

        small, bulk = bench.measure(a, b, "pb", payload, options.small, options.reps)
        targets_first, _ = bench.measure(a, b, "pb-targets", payload, options.small, 0, targets_first=True)
        _, mid = bench.measure(a, b, "pb", one_property, 0, options.reps)
        xpra = {"small": None, "targets": None, "mid": None, "bulk": None}
        if os.access("/usr/bin/xpra", os.X_OK):
            try:
                c, d, logs = bench.xpra()
            except SystemExit as failure:
                xpra = dict.fromkeys(xpra, Undelivered("Xpra failed: " + str(failure).removeprefix("bench: ")))
            else:
                xpra["small"] = xpra_row(logs, lambda: bench.measure(c, d, "xpra", payload, options.small, 0, anchor=False,
                                                                     pause=XPRA_PAUSE, spacing=XPRA_SPACING)[0])
                xpra["targets"] = xpra_row(logs, lambda: bench.measure(c, d, "xpra-targets", payload, options.small, 0, anchor=False,
                                                                       pause=XPRA_PAUSE, spacing=XPRA_SPACING, targets_first=True)[0])
                xpra["mid"] = xpra_row(logs, lambda: bench.measure(c, d, "xpra", one_property, 0, options.reps, anchor=False,
                                                                   timeout=30, pause=XPRA_PAUSE, spacing=XPRA_SPACING)[1])

                def stated_size():
                    logs.mark()
                    if bench.stated_size_copy(c, d, payload):
                        return f" From an owner that gives the INCR size (bench/tools/owner.c), the {options.mib} MiB did paste."
                    said = logs.said()
                    return (f" From an owner that gives the INCR size (bench/tools/owner.c), Xpra refuses the {options.mib} MiB "
                            f"too: {quoted(said) if said else 'it did not paste, and xpra said nothing'}.")
                xpra["bulk"] = xpra_row(logs, lambda: bench.measure(c, d, "xpra", payload, 0, options.reps, anchor=False,
                                                                    timeout=30, pause=XPRA_PAUSE, spacing=XPRA_SPACING)[1], explain=stated_size)
    finally:
        bench.close()
    load.append(os.getloadavg())
    median = statistics.median
    print("# One pasteboard across displays\n")
    print(f"Two Xvfb servers, pasteboardd serving both; the first paste of each fresh copy made by xclip on A, read by "
          f"bench/tools/requestor on B (through pasteboardd, which fetches it from xclip) and then on A (from xclip). "
          f"Xpra ({xpra_version()}): the same copies made on the xpra server's display, read on the display its "
          f"client is attached to. {options.small} small copies, {options.reps} copies of each bulk size; medians. "
          f"Load average (1, 5, 15 min) on {os.cpu_count()} CPUs: {', '.join(f'{x:.2f}' for x in load[0])} at the start, "
          f"{', '.join(f'{x:.2f}' for x in load[1])} at the end.\n")
    print("| row | across displays (B, through pasteboardd) | same display (A, from xclip) | ratio | Xpra across displays | pasteboardd ÷ Xpra | aim |")
    print("|---|---|---|---|---|---|---|")

    def cells(which, key, unit, fmt, ratio):
        figures = xpra[which]
        if isinstance(figures, dict):
            ours, theirs = median(ours_of[which][key]), median(figures[key])
            return f"{fmt.format(theirs)} {unit} | {ours / theirs:.2f}× {ratio}"
        return f"{figures.cell if figures else 'n/a: xpra is not installed'} | "

    ours_of = {"small": small, "targets": targets_first, "mid": mid, "bulk": bulk}
    mid_label = f"{len(one_property):,}-byte paste (the largest xclip sends without INCR)"
    rows = (("small paste, first of its copy", "small", "µs", "{:,.0f}", "the time", "≤ 1.5× same display, faster than Xpra"),
            ("small paste asking TARGETS first (as Qt, Chromium, Firefox do), first of its copy", "targets", "µs", "{:,.0f}",
             "the time", "≤ 1.5× same display, faster than Xpra"),
            (f"{options.mib} MiB paste, first of its copy", "bulk", "MiB/s", "{:,.0f}", "the throughput", "≥ 0.8× same display, faster than Xpra"),
            (f"{mid_label}, first of its copy", "mid", "MiB/s", "{:,.0f}", "the throughput", ""))
    for label, which, unit, fmt, ratio, aim in rows:
        cross, same = median(ours_of[which]["cross"]), median(ours_of[which]["same"])
        print(f"| {label} | {fmt.format(cross)} {unit} | {fmt.format(same)} {unit} | {cross / same:.2f}× {ratio} | "
              f"{cells(which, 'cross', unit, fmt, ratio)} | {aim} |")
    for label, which, fmt, aim in (("small copy", "small", "{:,.1f}", "within 250 ms"), (f"{options.mib} MiB copy", "bulk", "{:,.0f}", ""),
                                   (f"{len(one_property):,}-byte copy", "mid", "{:,.0f}", "")):
        print(f"| {label}: from xclip -i to its bytes pasted on the other display | {fmt.format(median(ours_of[which]['available']))} ms | | | "
              f"{cells(which, 'available', 'ms', fmt, 'the time')} | {aim} |")
    notes = [(which, figures["note"] if isinstance(figures, dict) else figures.note) for which, figures in xpra.items() if figures]
    notes = [(which, note) for which, note in notes if note]
    if notes:
        print()
    for which, note in notes:
        print(f"- Xpra, {dict(small='small copies', targets='small copies, TARGETS first', mid=mid_label, bulk=f'{options.mib} MiB')[which]}: {note}")
    return 0


def xpra_version():
    try:
        return subprocess.run(["/usr/bin/xpra", "--version"], capture_output=True, text=True, timeout=30,
                              env=dict(os.environ, PATH="/usr/bin:/bin")).stdout.strip() or "version unknown"
    except (OSError, subprocess.SubprocessError):
        return "not installed"


if __name__ == "__main__":
    sys.exit(main())
