# SPDX-License-Identifier: Apache-2.0
"""The X server killed and restarted under pasteboardd, and pasteboardd started before its X server.

The contract (systemd/pasteboardd.service, docs/architecture.md "Errors"): losing the X connection ends
the daemon with status 1 so that `Restart=on-failure` brings it back; the new daemon continues the counts
from `$XDG_STATE_HOME/pasteboard/counts` (the root-window properties died with the server) and, nobody
owning CLIPBOARD on the fresh server, serves `clipboard.archive` again. A daemon started before its X
server retries with a back-off (0.25 s doubling to 10 s) and sends READY=1 once it is connected.
"""
import os
import random
import signal
import socket
import subprocess
import time

from harness import ScenarioFailed, scenario, wait_until

EXIT_BOUND = 5.0   # seconds from the X server's death to the daemon's exit


def free_display_number():
    """A display number with no socket and no lock file (another suite may be using the low ones)."""
    numbers = list(range(140, 400))
    random.shuffle(numbers)
    for n in numbers:
        if not os.path.exists(f"/tmp/.X11-unix/X{n}") and not os.path.exists(f"/tmp/.X{n}-lock"):
            return n
    raise ScenarioFailed("no free X display number")


def x_clipboard(display):
    result = subprocess.run(["xclip", "-o", "-selection", "clipboard", "-t", "UTF8_STRING"],
                            env=dict(os.environ, DISPLAY=display), capture_output=True, timeout=20)
    return result.stdout if result.returncode == 0 else None


def saved(daemon, content):
    """Whether `content` is saved: the history entry is written after clipboard.archive."""
    shown = daemon.pb("history", "show", "0", check=False)
    return shown.returncode == 0 and shown.stdout == content



def spawn_without_waiting(ctx, daemon):
    """Starts `daemon` like Daemon.start but returns at once with the notify socket to wait on."""
    notify_path = os.path.join(daemon.home, f"notify-{time.monotonic_ns()}.sock")
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(notify_path)
    env = dict(daemon.env, NOTIFY_SOCKET=notify_path)
    with open(daemon.log_path, "ab") as log:
        daemon.process = ctx.processes.start([ctx.bin("pasteboardd")], env=env, stdout=log, stderr=log)
    return notify, notify_path


def received_ready(notify, timeout):
    notify.settimeout(timeout)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if b"READY=1" in notify.recv(4096).split(b"\n"):
                return True
        except socket.timeout:
            return False
    return False


@scenario("x_restart", "X server killed (SIGKILL, SIGTERM): the daemon exits 1 at once with one log line, and "
                       "restarted on a new server restores the clipboard; started before X, it waits and comes up")
def x_restart(ctx):
    number = free_display_number()
    xvfb = ctx.xvfb(number)
    daemon = ctx.daemon(xvfb.display)
    daemon.start()
    content = b"x-restart " + os.urandom(96 << 10).hex().encode()
    daemon.pb("copy", input=content)
    wait_until(lambda: saved(daemon, content), 10, what="the copy to be saved")

    for variant, sig in (("SIGKILL", signal.SIGKILL), ("SIGTERM", signal.SIGTERM)):
        before = daemon.count()
        mark = daemon.mark_log()
        killed = time.monotonic()
        xvfb.stop(sig)
        status = daemon.wait_exit(EXIT_BOUND + 5)
        exited_after = time.monotonic() - killed
        lines = [line for line in daemon.log_since(mark) if line.strip()]
        ctx.check(status == 1, f"{variant} of X: the daemon's exit status is {status}, not 1")
        ctx.check(exited_after <= EXIT_BOUND, f"{variant} of X: the daemon took {exited_after:.1f} s to exit")
        lost = [line for line in lines if "X server" in line or "XIO" in line or "X connection" in line]
        ctx.check(len(lost) == 1, f"{variant} of X: {len(lost)} lines about the X server: {lost}")
        ctx.check(len(lines) <= 2, f"{variant} of X: {len(lines)} log lines at exit: {lines}")
        ctx.figure(f"X server {variant}ed: pasteboardd exited with status {status} {exited_after * 1000:.0f} ms "
                   f"later, logging: " + " / ".join(f"`{line}`" for line in lines))
        if daemon.alive():
            ctx.stop(daemon.process, signal.SIGKILL)

        # As systemd would: the session's X server comes back on the same display, then the daemon.
        xvfb = ctx.xvfb(number)
        began = time.monotonic()
        daemon.start()
        ready_ms = (time.monotonic() - began) * 1000
        ctx.check(daemon.pb("paste", check=False).stdout == content,
                  f"{variant} of X: the clipboard was not restored from disk")
        served = x_clipboard(xvfb.display)
        ctx.check(served == content, f"after the {variant}: X clients read "
                                     f"{'nothing' if served is None else len(served)} bytes from CLIPBOARD")
        ctx.check(daemon.status().get("owned.CLIPBOARD", daemon.status().get("owned.general")) == "yes",
                  f"after the {variant}: the daemon does not own CLIPBOARD")
        after = daemon.count()
        ctx.check(after >= before, f"after the {variant}: changeCount went back from {before} to {after}")
        ctx.figure(f"restart on a fresh X server after the {variant}: READY in {ready_ms:.0f} ms, "
                   f"{len(content) // 1024} KiB clipboard restored and served to xclip, changeCount {before} → {after}")
        content = f"x-restart after {variant} ".encode() + os.urandom(64 << 10).hex().encode()
        daemon.pb("copy", input=content)
        wait_until(lambda: saved(daemon, content), 10, what="the copy to be saved")
    daemon.stop()
    xvfb.stop()

    # Started before its X server exists (session start): it waits, then comes up and restores.
    number = free_display_number()
    early = ctx.daemon(f":{number}", home=daemon.home)
    mark = early.mark_log()
    notify, notify_path = spawn_without_waiting(ctx, early)
    try:
        waited = 2.0
        ctx.check(not received_ready(notify, waited), "READY=1 before the X server exists")
        ctx.check(early.alive(), f"the daemon gave up waiting for X: {early.log_tail()}")
        waiting_lines = early.log_since(mark)
        ctx.check(any(f"cannot open X display :{number} yet; retrying" in line for line in waiting_lines),
                  f"no line says it waits for X: {waiting_lines}")
        xvfb = ctx.xvfb(number)
        x_up = time.monotonic()
        ready = received_ready(notify, 15)
        ready_after = time.monotonic() - x_up
        ctx.check(ready, "no READY=1 within 15 s of the X server coming up")
    finally:
        notify.close()
        os.unlink(notify_path)
    lines_while_waiting = len([line for line in early.log_since(mark) if "retrying" in line])
    ctx.check(ready_after <= 10.5, f"READY came {ready_after:.1f} s after X (the back-off is at most 10 s)")
    ctx.check(early.pb("paste", check=False).stdout == content, "the daemon that waited for X did not restore the clipboard")
    ctx.check(x_clipboard(xvfb.display) == content, "the daemon that waited for X does not serve CLIPBOARD")
    ctx.figure(f"started {waited:.0f} s before its X server: kept waiting ({lines_while_waiting} log line(s) while "
               f"waiting), READY=1 {ready_after * 1000:.0f} ms after X came up, clipboard restored and served")
