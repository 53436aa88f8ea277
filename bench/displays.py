#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""One pasteboard across two X displays, measured side by side with a paste on one display, in one run.

    bench/displays.py BIN_DIR [--reps N] [--small N] [--mib M]

Starts two private Xvfb servers (A and B) and pasteboardd serving both (`--display A --display B`). Each
measurement is the first paste of a fresh copy (a second paste on B is answered from what B fetched, at
same-display speed): xclip owns CLIPBOARD on A with a target named for that copy, and once B lists it, the
bench's requestor (bench/tools/requestor.c: one conversion, INCR handled, CLOCK_MONOTONIC in-process) reads
it on B — through pasteboardd, which fetches it from xclip on A — and then on A straight from xclip, the
anchor. Small: N copies of one line (the median of each, in µs). Bulk: M MiB of random bytes, REPS copies
(the median MiB/s); and for each copy the time from xclip -i to the first paste on the other display that
gives its bytes. The anchor for crossing displays is Xpra's clipboard sync (Debian's xpra, installed by
deps-bench): `xpra start` on a third Xvfb (C, `--use-display`), `xpra attach` from a fourth (D) over a local
socket, the same copies made on C and read on D. Prints markdown.
"""
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "tools"))
import pastebench  # noqa: E402
from pastebench import PasteBench  # noqa: E402


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
        """Two more Xvfbs joined by Xpra (server on C, client attached on D); returns (C, D)."""
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
                          .stdout == f"xpra probe {attempt}".encode(), "xpra's clipboard sync", timeout=1)
                self.stop(probe)
                return c, d
            except SystemExit:
                self.stop(probe)
                if time.monotonic() > deadline:
                    break
        raise SystemExit("bench: xpra's clipboard sync did not start within 60 s")



def main():
    options = pastebench.options()
    bench = Bench(options.bin)
    try:
        a, b = bench.xvfb(), bench.xvfb()
        bench.daemon([a, b])
        payload = os.urandom(options.mib << 20)

        small, bulk = bench.measure(a, b, "pb", payload, options.small, options.reps)
        xpra = None
        if os.access("/usr/bin/xpra", os.X_OK):
            c, d = bench.xpra()
            try:
                xpra = bench.measure(c, d, "xpra", payload, options.small, options.reps, anchor=False)
            except SystemExit as failure:
                xpra = "Xpra failed: " + str(failure).removeprefix("bench: ")
    finally:
        bench.close()
    sc, ss = statistics.median(small["cross"]), statistics.median(small["same"])
    bc, bs = statistics.median(bulk["cross"]), statistics.median(bulk["same"])
    print("# One pasteboard across displays\n")
    print(f"Two Xvfb servers, pasteboardd serving both; the first paste of each fresh copy made by xclip on A, read by "
          f"bench/tools/requestor on B (through pasteboardd, which fetches it from xclip) and then on A (from xclip). "
          f"Xpra: the same copies made on the xpra server's display, read on the display its client is attached to. "
          f"{options.small} small copies, {options.reps} copies of {options.mib} MiB; medians.\n")
    print("| row | across displays (B, through pasteboardd) | same display (A, from xclip) | ratio | Xpra across displays | pasteboardd ÷ Xpra | aim |")
    print("|---|---|---|---|---|---|---|")
    sa, ba = statistics.median(small["available"]), statistics.median(bulk["available"])
    if isinstance(xpra, tuple):
        xs, xb = statistics.median(xpra[0]["cross"]), statistics.median(xpra[1]["cross"])
        xsa, xba = statistics.median(xpra[0]["available"]), statistics.median(xpra[1]["available"])
        cells = (f"{xs:,.0f} µs | {sc / xs:.2f}× the time", f"{xb:,.0f} MiB/s | {bc / xb:.2f}× the throughput",
                 f"{xsa:,.1f} ms | {sa / xsa:.2f}× the time", f"{xba:,.0f} ms | {ba / xba:.2f}× the time")
    else:
        cells = (f"{xpra or 'n/a: xpra is not installed'} | ",) * 4
    print(f"| small paste, first of its copy | {sc:,.0f} µs | {ss:,.0f} µs | {sc / ss:.2f}× the time | {cells[0]} | ≤ 1.5× same display, faster than Xpra |")
    print(f"| {options.mib} MiB paste, first of its copy | {bc:,.0f} MiB/s | {bs:,.0f} MiB/s | {bc / bs:.2f}× the throughput | {cells[1]} | ≥ 0.8× same display, faster than Xpra |")
    print(f"| small copy: from xclip -i to its bytes pasted on the other display | {sa:,.1f} ms | | | {cells[2]} | within 250 ms |")
    print(f"| {options.mib} MiB copy: from xclip -i to its bytes pasted on the other display | {ba:,.0f} ms | | | {cells[3]} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
