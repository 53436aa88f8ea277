#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""pasteboardd on a Wayland seat, measured side by side with wl-clipboard and wl-clip-persist's approach, in one run.

    bench/wayland.py BIN_DIR [--reps N] [--small N] [--mib M] [--keep-mib K] [--copies C]

A private headless sway (wlroots' zwlr_data_control_manager_v1; `WLR_BACKENDS=headless`, no input devices, no
XWayland; as `nobody` with its own 0700 runtime directory when run as root, since sway refuses root — root clients
use its socket) and a private Xvfb, the X display pasteboardd serves beside the seat (`--display X --wayland SOCKET`).

Pastes (issue 22: "wl-paste of content held by wl-copy vs held by pasteboardd"): the same bytes held by
`wl-copy --foreground` (wl-clipboard alone, no pasteboardd running) and by pasteboardd (copied by wl-copy, read by
pasteboardd, wl-copy then stopped, so that pasteboardd takes the selection over and serves what it kept: the
"took over" line of its log). Each is read by bench/tools/wlclip (a data-control client: the receive request to
end of file, CLOCK_MONOTONIC, in-process; `latency` keeps one connection for N pastes) and by `wl-paste` spawned
from here (the wall time of the whole process: start, connection, offer, paste). Small: N pastes of one line, REPS
times per holder; bulk: M MiB of random bytes, REPS copies per holder. The holders alternate rep by rep.

Keeping a copy: pasteboardd against a stand-in for wl-clip-persist's approach (wl-clip-persist is not in Debian:
`wlclip persist`, which asks for every offered MIME type of each copy at once, reads them all into memory and
sets the selection to a source of its own, as wl-clip-persist's README says it does). Each keeper is started
fresh; C copies by wl-copy of each value (one line of text; K MiB of text, which wl-copy offers under five names;
K MiB as application/octet-stream, one name), each kept once its copier is gone (pasteboardd's "took over" line;
the stand-in's "kept" line and wl-copy's exit, cancelled by it); the keeper's CPU for it (the schedstat run time of
all its threads) and its memory (VmRSS, VmHWM; PSS and anonymous memory from smaps_rollup) after the first and after the last, against
the keeper before the first copy; and the copier's CPU (wl-copy with the children it forks to serve each read:
wait4). Prints markdown.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "tools"))
from children import Children  # noqa: E402

NOBODY = 65534
KEEPERS = ("pasteboardd", "pasteboardd on the seat alone", "stand-in")
TEXT = "text/plain;charset=utf-8"
BINARY = "application/octet-stream"


class Bench(Children):
    def __init__(self, bin_dir):
        super().__init__()
        self.bin = bin_dir
        self.work = tempfile.mkdtemp(prefix="pb-wayland.")
        os.chmod(self.work, 0o755)
        self.wlclip = os.path.join(self.work, "wlclip")
        glue = os.path.join(ROOT, "Sources", "CWaylandShims", "generated")
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "wayland-client"], capture_output=True, text=True,
                               check=True).stdout.split()
        subprocess.run(["cc", "-O2", "-o", self.wlclip, os.path.join(HERE, "tools", "wlclip.c"),
                        os.path.join(glue, "wlr-data-control-unstable-v1-protocol.c"), "-I" + glue, "-lpthread"] + flags,
                       check=True)
        self.daemon_process = None

    def close(self):
        self.stop_all()
        if not os.environ.get("PB_BENCH_KEEP"):
            shutil.rmtree(self.work, ignore_errors=True)

    @staticmethod
    def wait(predicate, what, timeout=30, pause=0.002):
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise SystemExit(f"bench: timed out waiting for {what}")
            time.sleep(pause)

    # --- the compositor, the X display, pasteboardd -----------------------------------------------------------

    def sway(self):
        """A headless sway in a runtime directory of its own; sets self.socket (an absolute path)."""
        runtime = os.path.join(self.work, "sway")
        os.makedirs(runtime, mode=0o700)
        config = os.path.join(runtime, "config")
        with open(config, "w") as f:
            f.write("output HEADLESS-1 resolution 640x480\nxwayland disable\n")
        argv = ["sway", "-c", config]
        if os.getuid() == 0:
            os.chown(runtime, NOBODY, NOBODY)
            os.chown(config, NOBODY, NOBODY)
            argv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--"] + argv
        env = {"HOME": runtime, "XDG_RUNTIME_DIR": runtime, "WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1",
               "WLR_RENDERER": "pixman", "PATH": "/usr/bin:/bin"}
        self.start(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        found = []
        self.wait(lambda: found.extend(n for n in os.listdir(runtime) if n.startswith("wayland-") and not n.endswith(".lock"))
                  or found, "sway's socket", timeout=15)
        self.socket = os.path.join(runtime, found[0])
        self.wait(lambda: subprocess.run([self.wlclip, "types"], env=self.env(), capture_output=True).returncode in (0, 2),
                  "sway's data-control")

    def env(self):
        # A desktop's PATH: wl-copy 2.1 serves each paste by running `cat` on its buffer file, looked up on $PATH
        # (a longer PATH, as a toolchain's shims make, adds a failed execve per directory before /usr/bin).
        env = dict(os.environ, PATH="/usr/local/bin:/usr/bin:/bin", WAYLAND_DISPLAY=self.socket, DISPLAY=self.display, HOME=self.work,
                   XDG_RUNTIME_DIR=os.path.join(self.work, "run"), XDG_STATE_HOME=os.path.join(self.work, "state"),
                   XDG_CONFIG_HOME=os.path.join(self.work, "config"))
        for key in ("NOTIFY_SOCKET", "JOURNAL_STREAM"):
            env.pop(key, None)
        return env

    def daemon(self, x=True):
        """A fresh pasteboardd (empty state) serving the X display and the seat, or with `x` false the seat alone
        (no `DISPLAY`, no `--display`: the stand-in's setup); its process."""
        for sub in ("run", "state", "config"):
            shutil.rmtree(os.path.join(self.work, sub), ignore_errors=True)
            os.makedirs(os.path.join(self.work, sub), mode=0o700)
        self.log_path = os.path.join(self.work, "pasteboardd.log")
        log = open(self.log_path, "wb")
        env = self.env()
        if not x:
            del env["DISPLAY"]
        displays = ["--display", self.display] if x else []
        self.daemon_process = self.start([os.path.join(self.bin, "pasteboardd")] + displays + ["--wayland", self.socket],
                                         env=env, stdout=log, stderr=log)
        log.close()
        self.wait(lambda: "serving the Wayland seat" in self.log() and
                  subprocess.run([os.path.join(self.bin, "pb"), "count"], env=env, capture_output=True).returncode == 0,
                  "pasteboardd on the seat")
        return self.daemon_process

    def stop_daemon(self):
        self.stop(self.daemon_process)
        self.daemon_process = None

    def status(self):
        return subprocess.run([os.path.join(self.bin, "pb"), "status"], env=self.env(), capture_output=True).stdout.decode()

    def log(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")

    def clear_seat(self):
        """No selection on the seat (a source that is replaced and then cancelled by its own copier's exit)."""
        owner = self.wl_copy(b"clear", BINARY)
        self.stop(owner)
        self.wait(lambda: subprocess.run([self.wlclip, "types"], env=self.env(), capture_output=True).returncode == 2,
                  "an empty seat")

    # --- copies and pastes ------------------------------------------------------------------------------------

    def wl_copy(self, data, mime=None, wait=True):
        """wl-copy --foreground holding `data` (as `mime`, else the type wl-copy infers), once the seat offers it
        (unless not `wait`: a keeper that takes the selection over at once may hide it)."""
        source = os.path.join(self.work, "copy")
        with open(source, "wb") as f:
            f.write(data)
        argv = ["wl-copy", "--foreground"] + (["--type", mime] if mime else [])
        before = self.types()
        owner = self.start(argv, env=self.env(), stdin=open(source, "rb"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if wait:
            self.wait(lambda: self.types() != before and self.types() is not None and "application/x-pasteboardd-source" not in self.types(),
                      "wl-copy's selection")
        return owner

    def types(self):
        result = subprocess.run([self.wlclip, "types"], env=self.env(), capture_output=True)
        return result.stdout.decode().split("\n")[:-1] if result.returncode == 0 else None

    def held_by_daemon(self, data, mime=None):
        """`data` copied by wl-copy, read by pasteboardd, wl-copy stopped: pasteboardd holds the seat's selection."""
        mark = len(self.log())
        owner = self.wl_copy(data, mime)
        self.wait(lambda: "read CLIPBOARD on" in self.log()[mark:], "pasteboardd's read of the copy", timeout=60)
        self.stop(owner)
        self.wait(lambda: "took over CLIPBOARD on" in self.log()[mark:], "pasteboardd's takeover", timeout=60)

    def paste(self, mime, expected):
        out = os.path.join(self.work, "pasted")
        result = subprocess.run([self.wlclip, "paste", mime, out], env=self.env(), capture_output=True, timeout=120)
        if result.returncode != 0:
            raise SystemExit(f"bench: wlclip paste {mime} failed: {result.stderr.decode(errors='replace').strip()} "
                             f"(the seat offers {self.types()})")
        with open(out, "rb") as f:
            if f.read() != expected:
                raise SystemExit(f"bench: wlclip paste {mime} gave other bytes")
        return eval_json(result.stdout)

    def latency(self, mime, runs):
        result = subprocess.run([self.wlclip, "latency", mime, str(runs)], env=self.env(), capture_output=True, timeout=120)
        if result.returncode != 0:
            raise SystemExit(f"bench: wlclip latency failed: {result.stderr.decode(errors='replace')}")
        return eval_json(result.stdout)

    def wl_paste(self, mime, expected):
        """One `wl-paste --no-newline --type MIME` spawned from here, its output to a file; the wall time in seconds."""
        out = os.path.join(self.work, "wl-pasted")
        with open(out, "wb") as f:
            began = time.monotonic()
            subprocess.run(["wl-paste", "--no-newline", "--type", mime], env=self.env(), stdout=f, check=True, timeout=120)
            seconds = time.monotonic() - began
        with open(out, "rb") as f:
            if f.read() != expected:
                raise SystemExit(f"bench: wl-paste --type {mime} gave other bytes")
        return seconds


def eval_json(text):
    import json
    return json.loads(text)


# --- what a process costs ---------------------------------------------------------------------------------------

def cpu_ns(pid):
    """The run time of all `pid`'s threads (schedstat's first field, in ns)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total


def children_ns(pid):
    """The CPU of `pid`'s children that it waited for (cutime + cstime of /proc/PID/stat), in ns (10 ms ticks)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[13]) + int(fields[14])) * 1e9 / os.sysconf("SC_CLK_TCK")


def memory_kib(pid):
    """VmRSS, VmHWM, PSS and anonymous memory (smaps_rollup's Anonymous: the heap, stacks, what the process
    allocated, against the program's and libraries' pages, which are read from their files) of `pid`, in KiB."""
    figures = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key = line.split(":")[0]
            if key in ("VmRSS", "VmHWM"):
                figures[key] = int(line.split()[1])
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            if line.startswith("Pss:"):
                figures["Pss"] = int(line.split()[1])
            elif line.startswith("Anonymous:"):
                figures["Anonymous"] = int(line.split()[1])
    return figures


def reap_cpu_ms(process):
    """Waits for `process` (which must be exiting) with wait4: its CPU and its waited-for children's, in ms."""
    _, _, usage = os.wait4(process.pid, 0)
    process.returncode = 0
    return (usage.ru_utime + usage.ru_stime) * 1e3


class StandIn:
    """The wl-clip-persist stand-in, `wlclip persist`, its stderr read line by line."""

    def __init__(self, bench):
        self.bench = bench
        self.log_path = os.path.join(bench.work, "persist.log")
        log = open(self.log_path, "wb")
        self.process = bench.start([bench.wlclip, "persist"], env=bench.env(), stdout=subprocess.DEVNULL, stderr=log)
        log.close()

    def kept(self):
        with open(self.log_path) as f:
            return f.read().count("kept ")


def keeping(bench, keeper, values, copies):
    """For each (label, data, mime) of `values`: `copies` copies by wl-copy kept by `keeper` ("pasteboardd",
    "pasteboardd on the seat alone" or "stand-in"), started fresh for each value. Returns {label: figures}."""
    results = {}
    for label, data, mime in values:
        bench.clear_seat()
        if keeper.startswith("pasteboardd"):
            pid = bench.daemon(x=keeper == "pasteboardd").pid
        else:
            stand_in = StandIn(bench)
            pid = stand_in.process.pid
        time.sleep(0.5)
        base_cpu, base_mem = cpu_ns(pid), memory_kib(pid)
        cpu, copier, after = [], [], []
        for n in range(copies):
            value = b"ABCDEFGHIJ"[n % 10:n % 10 + 1] + data[1:]  # a copy of its own, still text
            before = cpu_ns(pid)
            if keeper.startswith("pasteboardd"):
                mark = len(bench.log())
                owner = bench.wl_copy(value, mime)
                bench.wait(lambda: "read CLIPBOARD on" in bench.log()[mark:], "pasteboardd's read", timeout=60)
                os.kill(owner.pid, 15)
                copier.append(reap_cpu_ms(owner))
                bench.children.remove(owner)
                bench.wait(lambda: "took over CLIPBOARD on" in bench.log()[mark:], "pasteboardd's takeover", timeout=60)
            else:
                seen = stand_in.kept()
                owner = bench.wl_copy(value, mime, wait=False)
                bench.wait(lambda: stand_in.kept() > seen, "the stand-in's read", timeout=60)
                copier.append(reap_cpu_ms(owner))  # cancelled by the stand-in's selection, wl-copy exits by itself
                bench.children.remove(owner)
            if keeper.startswith("pasteboardd"):
                # Its writer thread saves the history entry (with fsync) after the read: its CPU is read before each
                # `pb status` that asks whether that is done, so the bench's asking is not counted as keeping.
                deadline = time.monotonic() + 30
                while True:
                    time.sleep(0.3)
                    spent = cpu_ns(pid)
                    if "writes: 0\n" in bench.status():
                        break
                    if time.monotonic() > deadline:
                        raise SystemExit("bench: timed out waiting for pasteboardd's writes")
            else:
                time.sleep(0.3)
                spent = cpu_ns(pid)
            cpu.append((spent - before) / 1e6)
            after.append(memory_kib(pid))
            pasted = bench.paste(mime or TEXT, value)
            assert pasted["bytes"] == len(value)
        results[label] = {"cpu": cpu, "copier": copier, "base": base_mem, "first": after[0], "last": after[-1],
                          "bytes": len(data)}
        if keeper.startswith("pasteboardd"):
            bench.stop_daemon()
        else:
            bench.stop(stand_in.process)
    return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin")
    parser.add_argument("--reps", type=int, default=int(os.environ.get("PB_BENCH_REPS", 3)))
    parser.add_argument("--small", type=int, default=30)
    parser.add_argument("--mib", type=int, default=int(os.environ.get("PB_BENCH_BULK_MIB", 64)))
    parser.add_argument("--keep-mib", type=int, default=10)
    parser.add_argument("--copies", type=int, default=5)
    options = parser.parse_args()
    median = statistics.median
    load = [os.getloadavg()]
    bench = Bench(options.bin)
    small = {"wl-copy": {"wlclip": [], "wl-paste": []}, "pasteboardd": {"wlclip": [], "wl-paste": []}}
    bulk = {"wl-copy": {"wlclip": [], "wl-paste": [], "cpu": []}, "pasteboardd": {"wlclip": [], "wl-paste": [], "cpu": []}}
    try:
        bench.display = bench.xvfb()
        bench.sway()
        line = b"pasteboard benchmark: a short line of text\n"
        payload = os.urandom(options.mib << 20)
        for rep in range(options.reps):
            for holder in ("wl-copy", "pasteboardd"):
                bench.clear_seat()
                data = line.replace(b"short", f"short {rep}".encode())
                value = bytes([rep]) + payload[1:]
                if holder == "wl-copy":
                    owner = bench.wl_copy(data)
                else:
                    bench.daemon()
                    bench.held_by_daemon(data)
                small[holder]["wlclip"].append(bench.latency(TEXT, options.small)["median_us"])
                small[holder]["wl-paste"] += [bench.wl_paste(TEXT, data) * 1e6 for _ in range(max(1, options.small // 3))]
                if holder == "wl-copy":
                    bench.stop(owner)
                    owner = bench.wl_copy(value, BINARY)
                else:
                    bench.held_by_daemon(value, BINARY)
                holder_pid = owner.pid if holder == "wl-copy" else bench.daemon_process.pid
                before = cpu_ns(holder_pid) + children_ns(holder_pid)
                bulk[holder]["wlclip"].append(bench.paste(BINARY, value)["mib_per_s"])
                # wl-copy's own CPU and the `cat` it forks per paste and waits for (its children's, in clock ticks)
                bulk[holder]["cpu"].append((cpu_ns(holder_pid) + children_ns(holder_pid) - before) / 1e6)
                bulk[holder]["wl-paste"].append(options.mib / bench.wl_paste(BINARY, value))
                if holder == "wl-copy":
                    bench.stop(owner)
                else:
                    bench.stop_daemon()
        del payload
        keep_data = os.urandom(options.keep_mib << 19).hex().encode()  # K MiB of text
        values = (("one line of text (wl-copy: 5 names)", line, None),
                  (f"{options.keep_mib} MiB of text (wl-copy: 5 names)", keep_data, None),
                  (f"{options.keep_mib} MiB, {BINARY} (1 name)", keep_data, BINARY))
        keep = {keeper: keeping(bench, keeper, values, options.copies) for keeper in KEEPERS}
    finally:
        bench.close()
    load.append(os.getloadavg())

    print("# pasteboardd on a Wayland seat\n")
    print(f"A headless sway 1.7 (wlr-data-control, no XWayland) and an Xvfb, pasteboardd serving both "
          f"(`--display --wayland`); {wl_clipboard_version()}. Pastes read by bench/tools/wlclip (in-process: receive "
          f"to end of file; one connection for {options.small} small pastes) and by `wl-paste` spawned from here "
          f"(the whole process); the holders alternate, {options.reps} reps each; medians. Load average (1, 5, 15 min) "
          f"on {os.cpu_count()} CPUs: {', '.join(f'{x:.2f}' for x in load[0])} at the start, "
          f"{', '.join(f'{x:.2f}' for x in load[1])} at the end.\n")
    print("## Serving a paste: held by wl-copy, held by pasteboardd\n")
    print("| row | held by pasteboardd | held by `wl-copy --foreground` | ratio | aim: at least as fast as wl-copy |")
    print("|---|---|---|---|---|")
    for label, figures, key, unit, fmt, lower in (
            ("small paste, wlclip (in-process)", small, "wlclip", "µs", "{:,.0f}", True),
            ("small paste, `wl-paste` (the whole process)", small, "wl-paste", "µs", "{:,.0f}", True),
            (f"{options.mib} MiB paste, wlclip (in-process)", bulk, "wlclip", "MiB/s", "{:,.0f}", False),
            (f"{options.mib} MiB paste, `wl-paste` (the whole process)", bulk, "wl-paste", "MiB/s", "{:,.0f}", False)):
        ours, theirs = median(figures["pasteboardd"][key]), median(figures["wl-copy"][key])
        met = ours <= theirs if lower else ours >= theirs
        print(f"| {label} | {fmt.format(ours)} {unit} | {fmt.format(theirs)} {unit} | "
              f"{ours / theirs:.2f}× {'the time' if lower else 'the throughput'} | {'yes' if met else '**no**'} |")
    print()
    print(f"The holder's own CPU during one {options.mib} MiB paste (wlclip; schedstat of its threads): pasteboardd "
          f"{median(bulk['pasteboardd']['cpu']):,.1f} ms; wl-copy {median(bulk['wl-copy']['cpu']):,.1f} ms with the `cat` it "
          f"forks to write the bytes (the children's CPU in 10 ms clock ticks).\n")
    print(f"## Keeping a copy: pasteboardd against wl-clip-persist's approach\n")
    print(f"Each keeper started fresh for each value; {options.copies} copies by `wl-copy --foreground` each, kept once "
          f"the copier is gone. The stand-in for wl-clip-persist's approach is bench/tools/wlclip `persist` (Debian has no "
          f"wl-clip-persist): every offered MIME type read into memory at once, then the selection set to its own "
          f"source. CPU: the keeper's threads (schedstat) per copy, median (pasteboardd's read before each `pb status` that "
          f"asks whether its writes are done); memory: after the first and the last copy, "
          f"above the keeper before the first; the copier: wl-copy with the children it forks (wait4): wl-copy 2.1 infers the type with `xdg-mime` and "
          f"serves each read by running `cat` on its buffer file, one read at a time.\n")
    print(f"pasteboardd is measured twice: serving the bench's X display beside the seat (`--display --wayland`: it owns "
          f"the X selection for each Wayland copy and publishes its count there) and on the seat alone (no `DISPLAY`, "
          f"no `--display`), which is the stand-in's setup: the like-for-like pair.\n")
    print("| value | row | pasteboardd (X display and seat) | pasteboardd (seat alone) | stand-in (wl-clip-persist's approach) "
          "| ratio (X and seat / seat alone) | aim: less than the eager read (X and seat / seat alone) |")
    print("|---|---|---|---|---|---|---|")
    for label, _, _ in values:
        ours, alone, theirs = (keep[keeper][label] for keeper in KEEPERS)
        figures = (ours, alone, theirs)
        rows = [("keeper CPU per copy", "ms", [median(f["cpu"]) for f in figures], "{:,.2f}"),
                ("copier CPU per copy (wl-copy's whole life: start-up, type inference, a `cat` per read)", "ms",
                 [median(f["copier"]) for f in figures], "{:,.1f}")]
        for key, name in (("VmRSS", "RSS"), ("Pss", "PSS"), ("Anonymous", "anonymous memory")):
            for when, which in (("first", "after the first copy"), ("last", f"after {options.copies} copies")):
                rows.append((f"{name} growth {which}", "MiB", [(f[when][key] - f["base"][key]) / 1024 for f in figures], "{:,.2f}"))
        rows.append(("peak RSS (VmHWM) growth", "MiB", [(f["last"]["VmHWM"] - f["base"]["VmHWM"]) / 1024 for f in figures], "{:,.2f}"))
        for row, unit, (a, c, b), fmt in rows:
            def ratio(x):
                return f"{x / b:.2f}×" if abs(b) > 1e-9 else "n/a"

            def met(x):
                return "yes" if x < b or (abs(x - b) < 0.05 and unit == "MiB") else "**no**"
            print(f"| {label} | {row} | {fmt.format(a)} {unit} | {fmt.format(c)} {unit} | {fmt.format(b)} {unit} | "
                  f"{ratio(a)} / {ratio(c)} | {'' if 'copier' in row else met(a) + ' / ' + met(c)} |")
    print()
    base_p, base_s = keep["pasteboardd"][values[0][0]]["base"], keep["stand-in"][values[0][0]]["base"]
    print(f"Before the first copy: pasteboardd RSS {base_p['VmRSS'] / 1024:,.1f} MiB, PSS {base_p['Pss'] / 1024:,.1f} MiB; "
          f"the stand-in (a small C program) RSS {base_s['VmRSS'] / 1024:,.1f} MiB, PSS {base_s['Pss'] / 1024:,.1f} MiB. "
          f"RSS and PSS count the pages of the program's own code that a copy runs for the first time (read from the "
          f"binary, clean, shared); anonymous memory is what the keeper allocated: the bytes it holds and its heap.")
    return 0


def wl_clipboard_version():
    result = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "wl-clipboard"], capture_output=True, text=True)
    return f"wl-clipboard {result.stdout.strip() or '(version unknown)'}"


if __name__ == "__main__":
    sys.exit(main())
