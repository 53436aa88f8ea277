#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Two daemons, one pasteboard, measured side by side with a paste on one display, in one run.

    bench/peers.py BIN_DIR [--reps N] [--small N] [--mib M]

Starts two private Xvfb servers (A and B), a pasteboardd on each with its own runtime, state and config
directories (two machines but for the network), and peers them (`pb peer add` of B's remote.sock, as through an
`ssh -L` forward). Each measurement is the first paste of a fresh copy: xclip owns CLIPBOARD on A with the copy,
and once B serves it, the bench's requestor (bench/tools/requestor.c: one conversion, INCR handled,
CLOCK_MONOTONIC in-process) reads it on B — through B's pasteboardd, which fetches it over the peer connection
from A's, which reads it from xclip — and then on A straight from xclip, the anchor. Small: N copies of one line
(the median of each, in µs). Bulk: M MiB of random bytes, REPS copies (the median MiB/s); and for each copy the
time from xclip -i to the first paste on B that gives its bytes. Prints markdown.
"""
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "tools"))
import pastebench  # noqa: E402
from pastebench import PasteBench  # noqa: E402


class Bench(PasteBench):
    def __init__(self, bin_dir):
        super().__init__(bin_dir, "pb-peers.")
        self.homes = {}

    def env(self, display):
        home = self.homes.setdefault(display, os.path.join(self.work, "home" + display.replace(":", "-")))
        env = dict(os.environ, DISPLAY=display, HOME=home, XDG_RUNTIME_DIR=os.path.join(home, "run"),
                   XDG_STATE_HOME=os.path.join(home, "state"), XDG_CONFIG_HOME=os.path.join(home, "config"))
        for key in ("NOTIFY_SOCKET", "JOURNAL_STREAM"):
            env.pop(key, None)
        return env

    def pb(self, display, *args):
        return subprocess.run([os.path.join(self.bin, "pb"), *args], env=self.env(display), capture_output=True)

    def daemon(self, display):
        env = self.env(display)
        for sub in ("run", "state", "config"):
            os.makedirs(os.path.join(env["HOME"], sub), mode=0o700, exist_ok=True)
        self.start([os.path.join(self.bin, "pasteboardd")], env=env, stderr=subprocess.DEVNULL)
        self.wait(lambda: self.pb(display, "count").returncode == 0, "the daemon")
        return os.path.join(env["XDG_RUNTIME_DIR"], "pasteboard", "remote.sock")



def main():
    options = pastebench.options()
    bench = Bench(options.bin)
    try:
        a, b = bench.xvfb(), bench.xvfb()
        bench.daemon(a)
        remote_b = bench.daemon(b)
        bench.pb(a, "peer", "add", remote_b)
        bench.wait(lambda: b"\tconnected\t" in bench.pb(a, "peer", "list").stdout, "the peers")
        payload = os.urandom(options.mib << 20)
        small, bulk = bench.measure(a, b, "pb", payload, options.small, options.reps)
    finally:
        bench.close()
    sc, ss = statistics.median(small["cross"]), statistics.median(small["same"])
    bc, bs = statistics.median(bulk["cross"]), statistics.median(bulk["same"])
    sa, ba = statistics.median(small["available"]), statistics.median(bulk["available"])
    print("# Two daemons, one pasteboard\n")
    print(f"Two Xvfb servers, a pasteboardd on each (its own directories), peered through B's remote.sock; the first "
          f"paste of each fresh copy made by xclip on A, read by bench/tools/requestor on B (through both daemons and "
          f"the peer connection) and then on A (from xclip). {options.small} small copies, {options.reps} copies of "
          f"{options.mib} MiB; medians.\n")
    print("| row | across daemons (B) | same display (A, from xclip) | ratio |")
    print("|---|---|---|---|")
    print(f"| small paste, first of its copy | {sc:,.0f} µs | {ss:,.0f} µs | {sc / ss:.2f}× the time |")
    print(f"| {options.mib} MiB paste, first of its copy | {bc:,.0f} MiB/s | {bs:,.0f} MiB/s | {bc / bs:.2f}× the throughput |")
    print(f"| small copy: from xclip -i to its bytes pasted on the other daemon's display | {sa:,.1f} ms | | |")
    print(f"| {options.mib} MiB copy: from xclip -i to its bytes pasted on the other daemon's display | {ba:,.0f} ms | | |")


if __name__ == "__main__":
    main()
