# SPDX-License-Identifier: Apache-2.0
"""The reliability suite's fixtures: private Xvfb servers, pasteboardd instances with their own XDG
directories, the pb command, and the report. Every process started here is recorded and stopped by its PID
(never by name) when the suite ends, whatever happened.

A scenario is a function `scenario(ctx)` registered with `@scenario("name", "what it shows")`. It uses the
fixtures on `ctx`, calls `ctx.figure(...)` for what it measured and `ctx.check(cond, message)` for what must
hold; an exception or a failed check fails the scenario, and the run goes on with the next one.
"""
import json
import os
import pwd
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
PEERS = os.path.join(HERE, "peers")
PYTHON = "/usr/bin/python3"

SCENARIOS = []


def scenario(name, shows):
    """Registers a scenario under `name`; `shows` is the one line the report prints for it."""
    def register(function):
        SCENARIOS.append((name, shows, function))
        return function
    return register


class ScenarioFailed(Exception):
    pass


def wait_until(predicate, timeout, interval=0.02, what="condition"):
    """Polls `predicate` until it returns a true value (returned) or `timeout` seconds pass (raises)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise ScenarioFailed(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


class Processes:
    """Children by PID; stop_all() ends them in reverse order: TERM, then KILL after a grace period."""

    def __init__(self):
        self.children = []

    def start(self, argv, **kwargs):
        kwargs.setdefault("stdin", subprocess.DEVNULL)
        process = subprocess.Popen(argv, **kwargs)
        self.children.append(process)
        return process

    def stop(self, process, sig=signal.SIGTERM, grace=5.0):
        """Signals `process` by PID and reaps it; returns its exit status (negative: killed by a signal)."""
        if process.poll() is None:
            try:
                os.kill(process.pid, sig)
            except ProcessLookupError:
                pass
            try:
                process.wait(grace)
            except subprocess.TimeoutExpired:
                os.kill(process.pid, signal.SIGKILL)
                process.wait()
        if process in self.children:
            self.children.remove(process)
        return process.returncode

    def stop_all(self):
        for process in reversed(list(self.children)):
            self.stop(process, grace=2.0)


class Xvfb:
    """A private X server (-noreset: it would otherwise reset whenever its last client leaves)."""

    def __init__(self, processes, work, display_number=None):
        self.processes = processes
        self.log = open(os.path.join(work, f"xvfb-{time.monotonic_ns()}.log"), "wb")
        read_end, write_end = os.pipe()
        argv = ["Xvfb", "-nolisten", "tcp", "-noreset"]
        if display_number is None:
            argv += ["-displayfd", str(write_end)]
        else:
            argv.insert(1, f":{display_number}")
        self.process = processes.start(argv, pass_fds=(write_end,), stdout=self.log, stderr=self.log)
        os.close(write_end)
        if display_number is None:
            with os.fdopen(read_end) as pipe:
                line = pipe.readline().strip()
            if not line:
                raise ScenarioFailed("Xvfb did not report a display")
            display_number = int(line)
        else:
            os.close(read_end)
        self.number = display_number
        self.display = f":{display_number}"
        wait_until(lambda: os.path.exists(f"/tmp/.X11-unix/X{display_number}"), 10, what="Xvfb's socket")
        # -displayfd reports once the server listens; a fixed number needs a real connection to be sure.
        wait_until(lambda: subprocess.run(["xdpyinfo", "-display", self.display], stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL).returncode == 0, 10, what="Xvfb")

    def stop(self, sig=signal.SIGTERM):
        return self.processes.stop(self.process, sig)


class Sway:
    """A private headless Wayland compositor: sway (wlroots: zwlr_data_control_manager_v1) with the headless
    backend, no input devices, the pixman renderer and XWayland only if asked for, in a runtime directory of its own.
    sway refuses to run as root, so under root it runs as nobody (setpriv) in a 0700 directory nobody owns; root's
    clients reach its socket by its absolute path (`socket`, what WAYLAND_DISPLAY is set to)."""

    NOBODY = 65534

    def __init__(self, processes, work, xwayland=False):
        self.processes = processes
        self.xwayland = xwayland
        self.runtime = tempfile.mkdtemp(prefix="sway-", dir=work)
        os.chmod(work, 0o755)  # nobody passes through the scenario's directory to its own
        config = os.path.join(self.runtime, "config")
        with open(config, "w") as f:
            f.write("output HEADLESS-1 resolution 640x480\nxwayland " + ("enable" if xwayland else "disable") + "\n")
        argv = ["sway", "-c", config]
        if os.getuid() == 0:
            os.chown(self.runtime, self.NOBODY, self.NOBODY)
            os.chown(config, self.NOBODY, self.NOBODY)
            argv = ["setpriv", f"--reuid={self.NOBODY}", f"--regid={self.NOBODY}", "--clear-groups", "--"] + argv
        env = {"HOME": self.runtime, "XDG_RUNTIME_DIR": self.runtime, "WLR_BACKENDS": "headless",
               "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman", "PATH": "/usr/bin:/bin"}
        self.log = open(os.path.join(work, f"sway-{time.monotonic_ns()}.log"), "wb")
        self.process = processes.start(argv, env=env, stdout=self.log, stderr=self.log)
        names = wait_until(lambda: [n for n in os.listdir(self.runtime) if n.startswith("wayland-") and not n.endswith(".lock")],
                           15, what="sway's socket")
        self.socket = os.path.join(self.runtime, names[0])
        def answers():
            result = subprocess.run(["wl-paste", "--list-types"], env=dict(os.environ, WAYLAND_DISPLAY=self.socket),
                                    capture_output=True, timeout=10)
            return result.returncode in (0, 1) and b"connect" not in result.stderr.lower()
        wait_until(answers, 10, what="sway's seat")

    def xwayland_display(self):
        """The XWayland display sway serves (started on demand), opened to this user: asked of sway through its IPC
        socket (`swaymsg exec` runs a script with sway's own DISPLAY, which also runs `xhost +si:localuser:`)."""
        ipc = wait_until(lambda: [n for n in os.listdir(self.runtime) if n.startswith("sway-ipc.")], 10, what="sway's IPC socket")
        answer = os.path.join(self.runtime, "xwayland-display")
        script = os.path.join(self.runtime, "xwayland-display.sh")
        user = pwd.getpwuid(os.getuid()).pw_name
        with open(script, "w") as f:
            f.write(f"xhost +si:localuser:{user} >/dev/null 2>&1\necho \"$DISPLAY\" > {answer}.part && mv {answer}.part {answer}\n")
        os.chmod(script, 0o644)
        subprocess.run(["swaymsg", "-s", os.path.join(self.runtime, ipc[0]), "exec", "sh " + script],
                       env={"PATH": "/usr/bin:/bin"}, capture_output=True, timeout=10, check=True)
        def said():
            try:
                with open(answer) as f:
                    return f.read().strip() or None
            except FileNotFoundError:
                return None
        return wait_until(said, 10, what="sway's XWayland display")

    def stop(self, sig=signal.SIGTERM):
        return self.processes.stop(self.process, sig)


class Daemon:
    """pasteboardd on `display` with private XDG directories; started() waits for READY=1."""

    def __init__(self, ctx, display, home=None, extra_env=None, args=()):
        self.ctx = ctx
        self.display = display
        self.args = list(args)
        self.home = home or tempfile.mkdtemp(prefix="daemon-", dir=ctx.work)
        for sub in ("runtime", "state", "config"):
            os.makedirs(os.path.join(self.home, sub), mode=0o700, exist_ok=True)
        self.env = dict(os.environ)
        for key in ("NOTIFY_SOCKET", "JOURNAL_STREAM", "WATCHDOG_USEC", "WATCHDOG_PID"):
            self.env.pop(key, None)
        self.env.update(DISPLAY=display, HOME=self.home,
                        XDG_RUNTIME_DIR=os.path.join(self.home, "runtime"),
                        XDG_STATE_HOME=os.path.join(self.home, "state"),
                        XDG_CONFIG_HOME=os.path.join(self.home, "config"))
        self.env.update(extra_env or {})
        self.log_path = os.path.join(self.home, "pasteboardd.log")
        self.process = None

    @property
    def socket_path(self):
        return os.path.join(self.home, "runtime", "pasteboard", "control.sock")

    def config(self, settings):
        """Writes config.json (takes effect at the next start or SIGHUP)."""
        directory = os.path.join(self.home, "config", "pasteboard")
        os.makedirs(directory, mode=0o700, exist_ok=True)
        with open(os.path.join(directory, "config.json"), "w") as f:
            json.dump(settings, f)

    def start(self, timeout=20):
        notify_path = os.path.join(self.home, f"notify-{time.monotonic_ns()}.sock")
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(notify_path)
        env = dict(self.env, NOTIFY_SOCKET=notify_path)
        log = open(self.log_path, "ab")
        self.process = self.ctx.processes.start([self.ctx.bin("pasteboardd")] + self.args, env=env, stdout=log, stderr=log)
        log.close()
        deadline = time.monotonic() + timeout
        try:
            notify.settimeout(0.2)
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise ScenarioFailed(f"pasteboardd exited with {self.process.returncode} before READY=1: "
                                         + self.log_tail())
                try:
                    if b"READY=1" in notify.recv(4096).split(b"\n"):
                        return self
                except socket.timeout:
                    pass
            raise ScenarioFailed(f"pasteboardd did not report READY=1 within {timeout} s")
        finally:
            notify.close()
            os.unlink(notify_path)

    @property
    def pid(self):
        return self.process.pid

    def alive(self):
        return self.process is not None and self.process.poll() is None

    def stop(self, sig=signal.SIGTERM):
        status = self.ctx.processes.stop(self.process, sig)
        return status

    def wait_exit(self, timeout):
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def pb(self, *args, input=b"", timeout=60, check=True):
        """Runs pb against this daemon; returns the CompletedProcess (stdout bytes)."""
        result = subprocess.run([self.ctx.bin("pb"), *args], input=input, env=self.env, capture_output=True,
                                timeout=timeout)
        if check and result.returncode != 0:
            raise ScenarioFailed(f"pb {' '.join(args)} exited {result.returncode}: "
                                 + result.stderr.decode(errors="replace").strip())
        return result

    def count(self):
        """CLIPBOARD's changeCount, as `pb count` prints it."""
        return int(self.pb("count").stdout.decode().strip())

    def status(self):
        """`pb status` as a dict."""
        out = self.pb("status", timeout=15).stdout.decode()
        return dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)

    def rss_kib(self):
        return proc_kib(self.pid, "VmRSS")

    def hwm_kib(self):
        return proc_kib(self.pid, "VmHWM")

    def fd_count(self):
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def quiet_fd_count(self, timeout=30):
        """The descriptors once the daemon is quiet: its writer thread has saved everything queued (`pb status`
        writes: 0; a save holds a file open for a moment, and a backlog of them lasts while the disk is slow)
        and no control client but the status query itself is connected; then the count once it is steady (the
        status query's own socket closes a moment after it exits)."""
        deadline = time.monotonic() + timeout
        while True:
            status = self.status()
            if (status.get("writes", "0") == "0" and status.get("clients") == "1") or time.monotonic() >= deadline:
                break
            time.sleep(0.1)
        last = self.fd_count()
        while time.monotonic() < deadline:
            time.sleep(0.05)
            now = self.fd_count()
            if now == last:
                break
            last = now
        return last

    def fd_targets(self):
        """What each open descriptor is (socket:[inode], a path...), sorted: for a failure message."""
        targets = []
        for fd in os.listdir(f"/proc/{self.pid}/fd"):
            try:
                targets.append(os.readlink(f"/proc/{self.pid}/fd/{fd}"))
            except OSError:
                pass
        return sorted(targets)

    def log_text(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode(errors="replace")
        except FileNotFoundError:
            return ""

    def log_lines(self):
        return self.log_text().splitlines()

    def log_tail(self, n=5):
        return " | ".join(self.log_lines()[-n:])

    def mark_log(self):
        """The log's length now: log_since(mark) gives the lines written after."""
        return len(self.log_text())

    def log_since(self, mark):
        return self.log_text()[mark:].splitlines()


def x_read(display, target="UTF8_STRING"):
    """What an X client on `display` pastes from CLIPBOARD as `target` (xclip -o), or None when it gets nothing."""
    result = subprocess.run(["xclip", "-o", "-selection", "clipboard", "-t", target],
                            env=dict(os.environ, DISPLAY=display), capture_output=True, timeout=20)
    return result.stdout if result.returncode == 0 else None


def proc_kib(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return None


class Context:
    """What a scenario gets: fixtures, the binaries, and where to put figures and checks."""

    def __init__(self, bin_dir, work, duration):
        self.bin_dir = bin_dir
        self.work = work
        self.duration = duration
        self.processes = Processes()
        self.figures = []
        self.failures = []

    def bin(self, name):
        return os.path.join(self.bin_dir, name)

    def peer(self, name):
        return os.path.join(PEERS, name)

    def compile_peer(self, name):
        """Compiles stress/peers/NAME.c against libX11 (cc -O2, as bench/run.sh builds its tool) into the
        scenario's work directory; returns the executable's path."""
        executable = os.path.join(self.work, name)
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "x11"], capture_output=True,
                               check=True).stdout.decode().split()
        result = subprocess.run(["cc", "-O2", "-o", executable, self.peer(name + ".c"), *flags],
                                capture_output=True)
        if result.returncode != 0:
            raise ScenarioFailed(f"cannot compile {name}.c: " + result.stderr.decode(errors="replace")[-600:])
        return executable

    def xvfb(self, display_number=None):
        return Xvfb(self.processes, self.work, display_number)

    def sway(self, xwayland=False):
        return Sway(self.processes, self.work, xwayland)

    def daemon(self, display, **kwargs):
        return Daemon(self, display, **kwargs)

    def start(self, argv, env=None, **kwargs):
        return self.processes.start(argv, env=env, **kwargs)

    def stop(self, process, sig=signal.SIGTERM, grace=5.0):
        return self.processes.stop(process, sig, grace)

    def run_peer(self, display, name, *args, timeout=60, input=None):
        """Runs a Python peer from stress/peers to completion; returns its stdout parsed as JSON lines."""
        env = dict(os.environ, DISPLAY=display)
        result = subprocess.run([PYTHON, self.peer(name), *args], env=env, capture_output=True, timeout=timeout,
                                input=input)
        if result.returncode != 0:
            raise ScenarioFailed(f"{name} {' '.join(args)} exited {result.returncode}: "
                                 + result.stderr.decode(errors="replace").strip()[-600:])
        return [json.loads(line) for line in result.stdout.decode().splitlines() if line.strip()]

    def figure(self, text):
        """A measured figure, printed in the report under the scenario."""
        self.figures.append(text)
        print(f"    {text}", flush=True)

    def check(self, condition, message):
        """Records a failed expectation (the scenario goes on, and fails at its end)."""
        if not condition:
            self.failures.append(message)
            print(f"    FAILED: {message}", flush=True)
        return condition


def run(bin_dir, only, duration, out):
    """Runs the registered scenarios (all, or those named in `only`); writes the report; returns 0 if all passed."""
    resource.setrlimit(resource.RLIMIT_NOFILE, (4096, max(4096, resource.getrlimit(resource.RLIMIT_NOFILE)[1])))
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    known = [name for name, _, _ in SCENARIOS]
    unknown = [name for name in only if name not in known]
    if unknown:
        print(f"stress: no scenario named {', '.join(unknown)} (known: {', '.join(known)})", file=sys.stderr)
        return 2
    rows = []
    started = time.monotonic()
    for name, shows, function in SCENARIOS:
        if only and name not in only:
            continue
        work = tempfile.mkdtemp(prefix=f"pb-stress-{name}-")
        ctx = Context(bin_dir, work, duration)
        print(f"== {name}: {shows}", flush=True)
        began = time.monotonic()
        error = None
        try:
            function(ctx)
        except Exception as e:  # noqa: BLE001 — a scenario's failure is reported, the run goes on
            error = f"{type(e).__name__}: {e}"
            print(f"    ERROR: {error}", flush=True)
            traceback.print_exc()
        finally:
            ctx.processes.stop_all()
        seconds = time.monotonic() - began
        failures = ctx.failures + ([error] if error else [])
        print(f"   {'ok' if not failures else 'FAILED'} ({seconds:.1f} s)", flush=True)
        rows.append((name, shows, failures, ctx.figures, seconds))
        if failures:
            keep = work + ".kept"
            shutil.move(work, keep)
            print(f"    logs kept in {keep}", flush=True)
        else:
            shutil.rmtree(work, ignore_errors=True)
    write_report(rows, out, time.monotonic() - started, bin_dir)
    failed = [row[0] for row in rows if row[2]]
    print(f"{len(rows) - len(failed)} passed, {len(failed)} failed" + (f": {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0


def write_report(rows, out, seconds, bin_dir):
    if not out:
        return
    load = open("/proc/loadavg").read().split()[:3]
    version = subprocess.run([os.path.join(bin_dir, "pb"), "--version"], capture_output=True).stdout.decode().strip()
    tree = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"], capture_output=True).stdout.decode().strip()
    lines = ["# pasteboard reliability suite — latest run", "",
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {version} (tree {tree}); "
             f"{os.cpu_count()} CPUs, load average at the end {' '.join(load)}; {seconds:.0f} s in all. "
             "Reproduce with `make stress` (or `stress/run.py --bin DIR [SCENARIO...]`).", "",
             "| scenario | what it shows | result | time |", "|---|---|---|---|"]
    for name, shows, failures, _, secs in rows:
        lines.append(f"| {name} | {shows} | {'pass' if not failures else 'FAIL'} | {secs:.0f} s |")
    for name, _, failures, figures, _ in rows:
        lines += ["", f"## {name}", ""]
        lines += [f"- {figure}" for figure in figures] or ["- (no figures)"]
        lines += [f"- **failed:** {failure}" for failure in failures]
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
