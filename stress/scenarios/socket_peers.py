# SPDX-License-Identifier: Apache-2.0
"""Hostile peers on the control socket while a well-behaved client keeps making round trips.

The daemon under attack runs with the file-descriptor limit of a systemd user service (soft 1024, the
hard limit of this process) because that is where it runs. The well-behaved client holds one connection
(as a library client does) and repeats setItems / items / status on a named pasteboard, checking every byte;
each phase also checks that a fresh `pb` is served. After each phase: open descriptors back to the
baseline, `pb status` `clients: 1`, RSS bounded. Encoding: docs/protocol.md.
"""
import os
import random
import resource
import shutil
import signal
import socket
import struct
import subprocess
import tempfile
import threading
import time

from harness import ScenarioFailed, scenario, wait_until

MAX_FRAME = 320 << 20
IDLE_TIMEOUT = 30.0          # ControlServer's idleTimeout (not configurable)
SYSTEMD_SOFT_NOFILE = 1024
GOOD_BOARD = "_PB_STRESS_GOOD"
TEXT = "text/plain;charset=utf-8"

# --- wire encoding (docs/protocol.md) ------------------------------------------------------------------


def u16(v):
    return struct.pack("<H", v)


def u32(v):
    return struct.pack("<I", v)


def string(s):
    b = s.encode() if isinstance(s, str) else s
    return u32(len(b)) + b


def frame(body):
    return u32(len(body)) + body


def body(kind, fields=b"", version=1):
    return bytes([version]) + u16(kind) + fields


def hello(client="stress"):
    return frame(body(0x0001, bytes([1]) + string(client)))


def set_items(board, representations, options=0):
    item = u32(len(representations)) + b"".join(string(t) + string(d) for t, d in representations)
    return frame(body(0x0002, string(board) + u32(1) + item + u32(options)))


def items(board):
    return frame(body(0x0012, string(board)))


def status():
    return frame(body(0x0006))


def history_item(index):
    return frame(body(0x000B, u32(index)))


class Closed(Exception):
    pass


def read_frame(sock, timeout=10.0):
    """(kind, fields) of the next response; raises Closed at end of stream, socket.timeout on timeout."""
    sock.settimeout(timeout)
    header = read_exactly(sock, 4)
    length = struct.unpack("<I", header)[0]
    data = read_exactly(sock, length)
    return struct.unpack("<H", data[1:3])[0], data[3:]


def read_exactly(sock, n):
    chunks = []
    while n:
        chunk = sock.recv(min(n, 1 << 20))
        if not chunk:
            raise Closed()
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def error_of(kind, fields):
    """(code, message) of an error response, or None."""
    if kind != 0x8004:
        return None
    code = struct.unpack("<H", fields[:2])[0]
    n = struct.unpack("<I", fields[2:6])[0]
    return code, fields[6:6 + n].decode(errors="replace")


def first_data(fields):
    """The data of the first representation of the first item of an `items` response."""
    _items, reps = struct.unpack("<II", fields[:8])
    offset = 8
    n = struct.unpack("<I", fields[offset:offset + 4])[0]
    offset += 4 + n
    n = struct.unpack("<I", fields[offset:offset + 4])[0]
    return fields[offset + 4:offset + 4 + n]


def status_pairs(fields):
    count = struct.unpack("<I", fields[:4])[0]
    offset, pairs = 4, {}
    for _ in range(count):
        values = []
        for _ in range(2):
            n = struct.unpack("<I", fields[offset:offset + 4])[0]
            values.append(fields[offset + 4:offset + 4 + n].decode())
            offset += 4 + n
        pairs[values[0]] = values[1]
    return pairs


def connect(path, timeout=5.0):
    """A connection to `path`; while the listen backlog is full (EAGAIN), tries again until `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(path)
            return sock
        except BlockingIOError:
            sock.close()
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.002)


def greeted(path):
    sock = connect(path)
    sock.sendall(hello())
    kind, _ = read_frame(sock)
    if kind != 0x8001:
        raise ScenarioFailed(f"hello answered with kind {kind:#x}")
    return sock


def is_closed(sock):
    """Whether the daemon has closed `sock`, reading (and dropping) whatever answers came first."""
    sock.setblocking(False)
    try:
        while True:
            if not sock.recv(1 << 16):
                return True
    except BlockingIOError:
        return False
    except OSError:
        return True


def closed_by_peer(sock, timeout):
    """Whether the daemon closes `sock` within `timeout` seconds (responses before the end are skipped)."""
    sock.settimeout(timeout)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            if not sock.recv(1 << 16):
                return True
    except socket.timeout:
        return False
    except OSError:
        return True
    return False


# --- the well-behaved client ----------------------------------------------------------------------------


class GoodClient:
    """One connection; setItems / items / status round trips with fresh bytes each time, every byte checked."""

    def __init__(self, path):
        self.path = path
        self.rounds = 0
        self.failures = []
        self.latencies = []
        self.running = threading.Event()
        self.stopped = False
        self.idle = threading.Event()
        self.holding = threading.Event()
        self.held = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        sock = None
        n = 0
        while not self.stopped:
            if not self.running.is_set():
                if sock:
                    sock.close()
                    sock = None
                self.idle.set()
                self.running.wait(0.1)
                continue
            self.idle.clear()
            if self.holding.is_set():
                self.held.set()
                time.sleep(0.05)
                continue
            try:
                if sock is None:
                    sock = greeted(self.path)
                n += 1
                data = f"good {n} ".encode() + os.urandom(random.randint(2 << 10, 48 << 10)).hex().encode()
                began = time.monotonic()
                sock.sendall(set_items(GOOD_BOARD, [(TEXT, data)]))
                kind, fields = read_frame(sock)
                if kind != 0x8002:
                    raise ScenarioFailed(f"setItems answered {kind:#x} {error_of(kind, fields)}")
                sock.sendall(items(GOOD_BOARD))
                kind, fields = read_frame(sock)
                if kind != 0x8008 or first_data(fields) != data:
                    raise ScenarioFailed(f"items answered {kind:#x} with other bytes")
                sock.sendall(status())
                kind, fields = read_frame(sock)
                if kind != 0x8005 or "clients" not in status_pairs(fields):
                    raise ScenarioFailed(f"status answered {kind:#x}")
                self.latencies.append(time.monotonic() - began)
                self.rounds += 1
            except Exception as e:  # noqa: BLE001 — every failure is a finding
                self.failures.append(f"round {n}: {type(e).__name__}: {e}")
                if sock:
                    sock.close()
                sock = None
                time.sleep(0.05)
            time.sleep(0.01)
        if sock:
            sock.close()
        self.idle.set()

    def resume(self):
        self.running.set()

    def pause(self):
        """Returns once the client is disconnected and waiting."""
        self.idle.clear()
        self.running.clear()
        self.idle.wait(20)

    def hold(self):
        """Returns once the client makes no more requests; it keeps its connection."""
        self.held.clear()
        self.holding.set()
        self.held.wait(20)

    def release(self):
        self.holding.clear()

    def stop(self):
        self.stopped = True
        self.running.set()
        self.thread.join(20)

    def take_latencies(self):
        values, self.latencies = self.latencies, []
        return values


# --- helpers on the daemon's side -----------------------------------------------------------------------


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def vm_kib(daemon, key):
    with open(f"/proc/{daemon.pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


class Phase:
    """Runs one hostile phase: the good client keeps going; afterwards the daemon is back to its baseline."""

    def __init__(self, ctx, daemon, good, name, baseline_fds=None):
        self.ctx, self.daemon, self.good, self.name = ctx, daemon, good, name
        self.baseline_fds = ctx.baseline_fds if baseline_fds is None else baseline_fds

    def __enter__(self):
        self.mark = self.daemon.mark_log()
        self.good.take_latencies()
        self.failures_before = len(self.good.failures)
        return self

    def __exit__(self, kind, value, tb):
        if kind is not None:
            return False
        ctx, daemon = self.ctx, self.daemon
        ctx.check(daemon.alive(), f"{self.name}: the daemon died: {daemon.log_tail()}")
        if not daemon.alive():
            raise ScenarioFailed(f"{self.name}: the daemon died")
        new_failures = self.good.failures[self.failures_before:]
        ctx.check(not new_failures, f"{self.name}: the well-behaved client failed {len(new_failures)} times: "
                                    f"{new_failures[:2]}")
        latencies = self.good.take_latencies()
        self.rounds = len(latencies)
        self.worst = f" (worst {max(latencies) * 1000:.0f} ms)" if latencies else ""

        self.good.pause()
        try:
            settled = lambda: daemon.quiet_fd_count(timeout=10) <= self.baseline_fds
            try:
                wait_until(settled, 20, interval=0.1, what="clients and descriptors back to the baseline")
            except ScenarioFailed:
                pass
            fds, clients = daemon.quiet_fd_count(timeout=10), daemon.status().get("clients")
            ctx.check(fds <= self.baseline_fds, f"{self.name}: {fds} descriptors open, baseline {self.baseline_fds}: "
                                               + ", ".join(sorted(os.readlink(f"/proc/{daemon.pid}/fd/{fd}")
                                                                  for fd in os.listdir(f"/proc/{daemon.pid}/fd"))))
            ctx.check(clients == "1", f"{self.name}: pb status says clients: {clients}, not 1")
            self.rss = daemon.rss_kib()
            ctx.check(self.rss <= ctx.baseline_rss + (96 << 10),
                      f"{self.name}: RSS {self.rss // 1024} MiB after the phase (baseline {ctx.baseline_rss // 1024} MiB)")
        finally:
            self.good.resume()
        return False



# --- the scenario -------------------------------------------------------------------------------------------


@scenario("socket_peers", "hostile control-socket peers (malformed, oversize, huge announced frames, slow-loris, "
                          "another uid, 1000/3000 connections, connect-close, non-readers) while a client is served")
def socket_peers(ctx):
    xvfb = ctx.xvfb()
    daemon = ctx.daemon(xvfb.display)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (SYSTEMD_SOFT_NOFILE, hard))
    try:
        daemon.start()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    with open(f"/proc/{daemon.pid}/limits") as f:
        limit_line = next(line for line in f if line.startswith("Max open files")).split()
    ctx.figure(f"daemon started with RLIMIT_NOFILE {SYSTEMD_SOFT_NOFILE}:{hard}; running with soft limit "
               f"{limit_line[3]}, hard {limit_line[4]}")
    path = daemon.socket_path

    # The slow-loris clients take the idle timeout to be closed: they run on a second daemon meanwhile.
    xvfb2 = ctx.xvfb()
    loris_daemon = ctx.daemon(xvfb2.display)
    loris_daemon.start()
    loris = SlowLoris(loris_daemon)

    daemon.pb("status")
    ctx.baseline_fds = daemon.quiet_fd_count()
    ctx.baseline_rss = daemon.rss_kib()
    good = GoodClient(path)
    good.resume()
    try:
        malformed(ctx, daemon, good, path)
        oversize(ctx, daemon, good, path)
        announced(ctx, daemon, good, path)
        many_connections(ctx, daemon, good, path)
        connect_close(ctx, daemon, good, path)
        non_readers(ctx, daemon, good, path)
        other_uid(ctx, xvfb2)
        loris.finish(ctx)
    finally:
        good.stop()
        loris.close()
    ctx.figure(f"well-behaved client: {good.rounds} round trips (setItems + items + status, 2–48 KiB, every "
               f"byte checked), {len(good.failures)} failures")
    ctx.check(good.rounds > 100, f"the well-behaved client made only {good.rounds} round trips")


def malformed(ctx, daemon, good, path):
    with Phase(ctx, daemon, good, "malformed frames") as phase:
        sock = greeted(path)
        bad = []
        rng = random.Random(7)
        for _ in range(300):
            n = rng.randint(0, 64)
            bad.append(("random body", bytes(rng.getrandbits(8) for _ in range(n))))
        bad += [
            ("bad body version", body(0x0006, version=2)),
            ("version 0", body(0x0006, version=0)),
            ("unknown kind", body(0x7777)),
            ("a response kind", body(0x8001)),
            ("kind only half there", bytes([1, 6])),
            ("empty body", b""),
            ("trailing bytes", body(0x0006, b"\0")),
            ("string longer than the body", body(0x0005, u32(1000) + b"general")),
            ("empty name", body(0x0005, string(""))),
            ("300-byte name", body(0x0005, string("n" * 300))),
            ("NUL in a name", body(0x0005, string("gen\0ral"))),
            ("invalid UTF-8", body(0x0005, string(b"\xff\xfe"))),
            ("bool 2", body(0x0008, string("_PB_STRESS_X") + b"\x02")),
            ("huge item count", body(0x0002, string("general") + u32(0xFFFFFFFF))),
            ("item count over the cap", body(0x0002, string("general") + u32(1025) + b"\0" * 8200)),
            ("representation count 0", body(0x0002, string("general") + u32(1) + u32(0) + u32(0))),
            ("data length past the end", body(0x0002, string("general") + u32(1) + u32(1) + string(TEXT) + u32(1 << 30))),
            ("duplicate types", body(0x0002, string("general") + u32(1) + u32(2) + string(TEXT) + string("a")
                                     + string(TEXT) + string("b") + u32(0))),
            ("unknown option bits", body(0x0002, string("general") + u32(1) + u32(1) + string(TEXT) + string("a")
                                         + u32(0x8000))),
            ("truncated setItems", body(0x0002, string("general") + u32(1) + u32(1) + u32(4))),
            ("watch count past the end", body(0x0011, u32(70000))),
        ]
        answered = errors = 0
        for label, b in bad:
            sock.sendall(frame(b))
            try:
                kind, fields = read_frame(sock, 5)
            except (Closed, socket.timeout) as e:
                ctx.check(False, f"malformed ({label}): no answer, {type(e).__name__}")
                sock.close()
                sock = greeted(path)
                continue
            answered += 1
            if error_of(kind, fields):
                errors += 1
        sock.sendall(status())
        kind, _ = read_frame(sock)
        ctx.check(kind == 0x8005, "after the malformed frames the same connection is not served")
        sock.close()
        named = len(bad) - 300
        ctx.check(answered == len(bad), f"{len(bad) - answered} malformed frames got no answer")
        # The first request must be hello; a hello with another version is refused.
        first_not_hello = connect(path)
        first_not_hello.sendall(status())
        kind, fields = read_frame(first_not_hello)
        ctx.check(error_of(kind, fields) is not None and closed_by_peer(first_not_hello, 3),
                  "a first request other than hello is not answered with an error and closed")
        first_not_hello.close()
        wrong_hello = connect(path)
        wrong_hello.sendall(frame(body(0x0001, bytes([9]) + string("future"))))
        kind, fields = read_frame(wrong_hello)
        refused = error_of(kind, fields)
        ctx.check(refused is not None and closed_by_peer(wrong_hello, 3),
                  "hello with version 9 was not answered with an error and closed (docs/protocol.md)")
        wrong_hello.close()
        # Pipelined requests, the first answered only once the X server has given a timestamp: the
        # answers come back in the order of the requests (docs/protocol.md).
        pipelined = greeted(path)
        data = b"pipelined " + os.urandom(512).hex().encode()
        pipelined.sendall(set_items("_PB_STRESS_PIPE", [(TEXT, data)]) + items("_PB_STRESS_PIPE") + status()
                          + frame(body(0x0005, string("_PB_STRESS_PIPE"))))
        answers = [read_frame(pipelined) for _ in range(4)]
        in_order = [kind for kind, _ in answers] == [0x8002, 0x8008, 0x8005, 0x8002] \
            and first_data(answers[1][1]) == data
        ctx.check(in_order, "pipelined setItems, items, status, changeCount were answered "
                            + ", ".join(f"{kind:#x}" for kind, _ in answers))
        pipelined.close()
    ctx.figure(f"malformed frames: {len(bad)} on one connection (300 random bodies, {named} crafted: bad version, "
               f"unknown kinds, truncated or over-long fields, bad UTF-8, bad bool, counts past the end…): every "
               f"one answered ({errors} with error), the connection still served; a first request other than "
               f"hello answered and closed, and so is a hello of version 9; 4 pipelined requests (setItems "
               f"first) answered in order; {phase.rounds} good round trips meanwhile{phase.worst}")


def oversize(ctx, daemon, good, path):
    with Phase(ctx, daemon, good, "oversize frames") as phase:
        rss_before = daemon.rss_kib()
        results = []
        for label, prefix, length in (("after hello", hello(), 0xFFFFFFFF),
                                      ("as the first frame", b"", MAX_FRAME + 1),
                                      ("after a complete request", hello() + status(), MAX_FRAME + 4096)):
            sock = connect(path)
            began = time.monotonic()
            sock.sendall(prefix + u32(length))
            try:
                sock.sendall(b"\0" * (1 << 20))      # a body it must not buffer
            except OSError:
                pass
            kinds = []
            try:
                while True:
                    kinds.append(read_frame(sock, 5))
            except (Closed, OSError):
                pass
            closed_after = time.monotonic() - began
            last = error_of(*kinds[-1]) if kinds else None
            ctx.check(last is not None and last[0] == 3, f"oversize ({label}): the last answer is not tooLarge: {last}")
            ctx.check(closed_after < 2, f"oversize ({label}): closed after {closed_after:.1f} s")
            results.append(closed_after)
            sock.close()
        time.sleep(0.2)
        lines = [line for line in phase_lines(daemon, phase) if "closing a control client" in line]
        ctx.check(len(lines) == 3, f"oversize: {len(lines)} log lines for 3 oversize frames: {lines}")
        grew = daemon.rss_kib() - rss_before
        ctx.check(grew < 8 << 10, f"oversize: RSS grew {grew} KiB")
    ctx.figure(f"oversize length prefixes (0xFFFFFFFF, 320 MiB + 1, + 4 KiB; each followed by 1 MiB): answered "
               f"tooLarge and closed within {max(results) * 1000:.0f} ms, one log line each "
               f"(`{lines[0].split(': ', 1)[-1] if lines else ''}`), nothing buffered")


def phase_lines(daemon, phase):
    """The daemon's log lines since the phase began, without the one line per copy of the good client."""
    return [line for line in daemon.log_since(phase.mark) if line.strip() and f"took {GOOD_BOARD}" not in line]


def announced(ctx, daemon, good, path, clients=250, announce=300 << 20, seconds=6.0):
    """Many clients each announce a large-but-allowed frame and trickle its bytes."""
    with Phase(ctx, daemon, good, "large announced frames") as phase:
        size_before, rss_before = vm_kib(daemon, "VmSize"), daemon.rss_kib()
        socks = []
        for _ in range(clients):
            sock = greeted(path)
            sock.sendall(u32(announce) + body(0x0002, string("general"))[:16])
            socks.append(sock)
        peak_size = peak_rss = 0
        sent = 0
        began = time.monotonic()
        while time.monotonic() - began < seconds and daemon.alive():
            for sock in socks:
                try:
                    sock.sendall(b"\0" * 4096)
                    sent += 4096
                except OSError:
                    pass
            peak_size = max(peak_size, vm_kib(daemon, "VmSize"))
            peak_rss = max(peak_rss, daemon.rss_kib())
            time.sleep(0.5)
        ctx.check(daemon.alive(), f"large announced frames: the daemon died: {daemon.log_tail()}")
        for sock in socks:
            sock.close()
        size_grew = (peak_size - size_before) // 1024
        rss_grew = (peak_rss - rss_before) // 1024
        ctx.check(size_grew < 2048, f"{clients} clients announcing {announce >> 20} MiB made the daemon reserve "
                                    f"{size_grew} MiB of address space (VmSize)")
        ctx.check(rss_grew < 256, f"{clients} clients announcing {announce >> 20} MiB: RSS grew {rss_grew} MiB")
    ctx.figure(f"{clients} clients each announcing a {announce >> 20} MiB frame and trickling 8 KiB/s for "
               f"{seconds:.0f} s ({sent >> 20} MiB sent in all): VmSize +{size_grew} MiB, RSS +{rss_grew} MiB at "
               f"the peak; {phase.rounds} good round trips meanwhile{phase.worst}")


def many_connections(ctx, daemon, good, path):
    for total in (1000, 3000):
        with Phase(ctx, daemon, good, f"{total} idle connections") as phase:
            socks, refused = [], 0
            for i in range(total):
                try:
                    sock = connect(path, timeout=5)
                    if i % 2:
                        sock.sendall(hello())   # half greeted, half silent
                    socks.append(sock)
                except OSError:
                    refused += 1
            time.sleep(1.0)
            # With the good client holding its requests too, nothing happens: an idle daemon makes no wakeups.
            good.hold()
            cpu_before = cpu_seconds(daemon.pid)
            held = time.monotonic()
            time.sleep(2.0)
            cpu_share = (cpu_seconds(daemon.pid) - cpu_before) / (time.monotonic() - held)
            good.release()
            began = time.monotonic()
            fresh = daemon.pb("status", check=False, timeout=20)
            fresh_s = time.monotonic() - began
            clients_seen = None
            if fresh.returncode == 0:
                clients_seen = dict(line.split(": ", 1) for line in fresh.stdout.decode().splitlines()
                                    if ": " in line).get("clients")
            open_now = sum(1 for sock in socks if not is_closed(sock))
            for sock in socks:
                sock.close()
            ctx.check(cpu_share < 0.1, f"{total} connections: the daemon used {cpu_share:.0%} of a CPU while "
                                       "they idled (spinning)")
            ctx.check(fresh_s < 5, f"{total} connections: a fresh pb status took {fresh_s:.1f} s")
            if total <= 1000:
                ctx.check(fresh.returncode == 0, f"{total} connections: a fresh pb status failed: "
                                                 f"{fresh.stderr.decode(errors='replace').strip()}")
            else:
                # Past the cap (2048) a new connection is refused at once, with a reason pb can print.
                ctx.check(fresh.returncode != 0 and b"clients connected" in fresh.stderr,
                          f"{total} connections: a fresh pb status at the cap: {fresh.returncode}, "
                          f"{fresh.stderr.decode(errors='replace').strip()}")
            lines = phase_lines(daemon, phase)
            ctx.check(len(lines) <= 12, f"{total} connections: {len(lines)} log lines: {lines[:3]}")
        ctx.figure(f"{total} idle connections (half greeted): {open_now} kept open by the daemon, {refused} refused "
                   f"at connect; daemon CPU while they idled {cpu_share:.1%}; a fresh `pb status` "
                   + (f"served in {fresh_s * 1000:.0f} ms (clients: {clients_seen})" if fresh.returncode == 0 else
                      f"refused in {fresh_s * 1000:.0f} ms: `{fresh.stderr.decode(errors='replace').strip()}`")
                   + f"; {len(lines)} log line(s)" + (f" (`{lines[0].split(': ', 1)[-1]}`)" if lines else "")
                   + f"; {phase.rounds} good round trips meanwhile{phase.worst}")


def connect_close(ctx, daemon, good, path, seconds=3.0):
    with Phase(ctx, daemon, good, "connect and close") as phase:
        counts = []

        def hammer():
            n = 0
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                try:
                    sock.connect(path)
                    n += 1
                except OSError:
                    pass
                sock.close()
            counts.append(n)
        threads = [threading.Thread(target=hammer) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(seconds + 10)
        lines = phase_lines(daemon, phase)
        ctx.check(len(lines) <= 6, f"connect and close: {len(lines)} log lines: {lines[:3]}")
    ctx.figure(f"connect-and-close loop: {sum(counts)} connections in {seconds:.0f} s from 2 threads; "
               f"{len(lines)} log lines; {phase.rounds} good round trips meanwhile{phase.worst}")


def serves_from(daemon, name):
    """True when one of the daemon's descriptors is the file `name` (in its state directory)."""
    for fd in os.listdir(f"/proc/{daemon.pid}/fd"):
        try:
            if os.readlink(f"/proc/{daemon.pid}/fd/{fd}").endswith("/" + name):
                return True
        except FileNotFoundError:
            continue   # closed meanwhile
    return False


def non_readers(ctx, daemon, good, path, clients=4, requests=30):
    """Clients that ask for 8 MiB again and again and never read the answers. historyItem is read from
    disk afresh for each request, so every answer queued would cost its own 8 MiB (an `items` answer shares
    the content's bytes)."""
    big = b"big " + os.urandom(4 << 20).hex().encode()[:(8 << 20) - 4]
    setter = greeted(path)
    setter.sendall(set_items("general", [(TEXT, big)]))
    kind, _ = read_frame(setter, 30)
    setter.close()
    ctx.check(kind == 0x8002, "could not set 8 MiB on CLIPBOARD")
    wait_until(lambda: daemon.pb("history", "show", "0", check=False).stdout == big, 10, what="8 MiB in the history")
    # Once written, the kept 8 MiB is served from its file (docs/architecture.md, "Large content is served from its
    # file"): one descriptor more for as long as it is the clipboard, the content's and not the phase's.
    wait_until(lambda: serves_from(daemon, "clipboard.archive"), 10, what="the 8 MiB served from its file")
    with Phase(ctx, daemon, good, "clients that never read", baseline_fds=ctx.baseline_fds + 1) as phase:
        rss_before = daemon.rss_kib()
        socks = []
        for _ in range(clients):
            sock = greeted(path)
            sock.sendall(history_item(0) * requests)
            socks.append(sock)
        time.sleep(1.0)
        peak = daemon.rss_kib()
        began = time.monotonic()
        fresh = daemon.pb("paste", check=False, timeout=30)
        paste_s = time.monotonic() - began
        ctx.check(fresh.stdout == big, f"a fresh pb paste of 8 MiB got {len(fresh.stdout)} bytes")
        time.sleep(1.0)
        peak = max(peak, daemon.rss_kib())
        for sock in socks:
            sock.close()
        grew = (peak - rss_before) // 1024
        bound = clients * 8 * 3
        ctx.check(grew <= bound, f"{clients} clients × {requests} unread 8 MiB answers: RSS grew {grew} MiB "
                                 f"(bound {bound} MiB: one pending answer per client)")
    ctx.figure(f"non-readers: {clients} clients each pipelining {requests} requests for an 8 MiB history entry and "
               f"reading nothing: RSS +{grew} MiB at the peak; a fresh `pb paste` of the 8 MiB took "
               f"{paste_s * 1000:.0f} ms; {phase.rounds} good round trips meanwhile{phase.worst}")


def other_uid(ctx, xvfb):
    """A daemon running as `nobody`; root connects (DAC lets it reach the 0700 directory): SO_PEERCRED says 0."""
    import pwd
    nobody = pwd.getpwnam("nobody")
    home = tempfile.mkdtemp(prefix="pb-stress-nobody-")
    try:
        os.chmod(home, 0o700)
        daemon = ctx.daemon(xvfb.display, home=home)
        for directory, _, files in os.walk(home):
            os.chown(directory, nobody.pw_uid, nobody.pw_gid)
            for f in files:
                os.chown(os.path.join(directory, f), nobody.pw_uid, nobody.pw_gid)
        notify_path = os.path.join(home, "notify.sock")
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(notify_path)
        os.chmod(notify_path, 0o666)
        log = open(daemon.log_path, "ab")
        env = dict(daemon.env, NOTIFY_SOCKET=notify_path)
        daemon.process = ctx.processes.start([ctx.bin("pasteboardd")], env=env, stdout=log, stderr=log,
                                             user=nobody.pw_uid, group=nobody.pw_gid, extra_groups=[])
        log.close()
        notify.settimeout(20)
        try:
            ready = b"READY=1" in notify.recv(4096)
        except socket.timeout:
            ready = False
        notify.close()
        ctx.check(ready, f"the daemon running as nobody did not start: {daemon.log_tail()}")
        if not ready:
            return
        mark = daemon.mark_log()
        sock = connect(daemon.socket_path)
        answer = b""
        try:
            # The daemon closes another user's connection at once, maybe before the hello is written:
            # a broken pipe or a reset here is the daemon doing its job, not a harness failure.
            sock.sendall(hello("root"))
            sock.settimeout(3)
            answer = sock.recv(64)
        except OSError:
            pass
        sock.close()
        # The refusal's log line is written before the connection is closed; wait for it, not a fixed time.
        deadline = time.monotonic() + 5
        lines = [line for line in daemon.log_since(mark) if line.strip()]
        while not lines and time.monotonic() < deadline:
            time.sleep(0.02)
            lines = [line for line in daemon.log_since(mark) if line.strip()]
        ctx.check(answer == b"", f"a connection from uid 0 to nobody's daemon got {len(answer)} bytes of answer")
        ctx.check(len(lines) == 1 and "another user" in lines[0], f"another uid: log lines {lines}")
        as_nobody = subprocess.run([ctx.bin("pb"), "status"], env=daemon.env, capture_output=True, timeout=15,
                                   user=nobody.pw_uid, group=nobody.pw_gid, extra_groups=[])
        ctx.check(as_nobody.returncode == 0, f"pb status as nobody failed: {as_nobody.stderr.decode(errors='replace')}")
        ctx.figure(f"another uid: root connecting to a daemon running as nobody (SO_PEERCRED uid 0) was closed "
                   f"without an answer, one log line (`{lines[0].split(': ', 1)[-1] if lines else ''}`); "
                   f"nobody's own pb status served")
        ctx.stop(daemon.process)
    finally:
        shutil.rmtree(home, ignore_errors=True)


class SlowLoris:
    """Clients that stall mid-frame or trickle one byte every 2 s, and clients idle between frames."""

    def __init__(self, daemon):
        self.daemon = daemon
        self.mark = daemon.mark_log()
        self.began = time.monotonic()
        self.closed_at = {}
        self.socks = {}
        path = daemon.socket_path
        for label in ("stall-header", "stall-body", "trickle-1", "trickle-2", "idle-1", "idle-2"):
            sock = greeted(path)
            if label == "stall-header":
                sock.sendall(u32(100)[:2])
            elif label == "stall-body":
                sock.sendall(status()[:5])
            elif label.startswith("trickle"):
                sock.sendall(u32(1 << 20))
            self.socks[label] = sock
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop.is_set() and len(self.closed_at) < len(self.socks):
            for label, sock in self.socks.items():
                if label in self.closed_at:
                    continue
                if label.startswith("trickle"):
                    try:
                        sock.send(b"\0")
                    except OSError:
                        self.closed_at[label] = time.monotonic() - self.began
                        continue
                if closed_by_peer(sock, 0.001):
                    self.closed_at[label] = time.monotonic() - self.began
            self.stop.wait(0.5 if not any(l.startswith("trickle") for l in self.socks) else 2.0)

    def finish(self, ctx):
        wait = self.began + IDLE_TIMEOUT + 5 - time.monotonic()
        if wait > 0:
            self.stop.wait(wait)
        self.stop.set()
        self.thread.join(10)
        stalled = {k: v for k, v in self.closed_at.items() if not k.startswith("idle")}
        for label in ("stall-header", "stall-body", "trickle-1", "trickle-2"):
            at = self.closed_at.get(label)
            ctx.check(at is not None and IDLE_TIMEOUT - 1 <= at <= IDLE_TIMEOUT + 4,
                      f"slow-loris {label}: closed at {at if at is None else round(at, 1)} s, "
                      f"the idle timeout is {IDLE_TIMEOUT:.0f} s")
        for label in ("idle-1", "idle-2"):
            ctx.check(label not in self.closed_at, f"a client idle between frames was closed ({label})")
        lines = [line for line in self.daemon.log_since(self.mark) if "stalled" in line]
        ctx.check(len(lines) == 4, f"slow-loris: {len(lines)} log lines for 4 closed clients")
        ctx.check(self.daemon.status().get("clients") == "3", "slow-loris: the idle clients are not all there")
        ctx.figure(f"slow-loris: 2 clients stalled mid-frame and 2 trickling a byte every 2 s were closed "
                   f"{min(stalled.values()):.1f}–{max(stalled.values()):.1f} s after their frame began (idle "
                   f"timeout {IDLE_TIMEOUT:.0f} s, not configurable), one log line each; 2 clients idle between "
                   "frames kept" if stalled else "slow-loris: nothing was closed")

    def close(self):
        self.stop.set()
        for sock in self.socks.values():
            sock.close()
