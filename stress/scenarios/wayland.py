# SPDX-License-Identifier: Apache-2.0
"""A Wayland seat and an X display, one pasteboard, under churn (issue 22): pasteboardd serves a headless sway's
seat (`--wayland`) and an Xvfb (`--display`); for the load's duration copies are made alternately on the seat by
wl-copy and on X by xclip, each read back on the other side (xclip -o on X, wl-paste on the seat) byte for byte.

What must hold: nothing lost — every copy pastes on the other side, byte for byte; no echo — each copy is exactly
one change (the daemon's own selection on the seat, marked, and its own X ownership are never counted), so the
count ends at start + copies; no fight — once the churn stops nothing changes any more; every copier that lost
its selection exits by itself (wl-copy cancelled, xclip's SelectionClear); the daemon never dies and never logs
content.
"""
import os
import subprocess
import time

from harness import ScenarioFailed, scenario, wait_until, x_read


def wl_read(socket):
    """What a Wayland client on the seat pastes (wl-paste, its text type, no newline added), or None."""
    result = subprocess.run(["wl-paste", "--no-newline"], env=dict(os.environ, WAYLAND_DISPLAY=socket),
                            capture_output=True, timeout=20)
    return result.stdout if result.returncode == 0 else None


@scenario("wayland", "a Wayland seat and an X display, one pasteboard, churn on both sides: every copy pastes on "
                     "the other side byte for byte, one change each, copiers exit once replaced, quiet once the churn stops")
def wayland(ctx):
    x = ctx.xvfb()
    sway = ctx.sway()
    daemon = ctx.daemon(x.display, args=["--display", x.display, "--wayland", sway.socket])
    daemon.start()
    wait_until(lambda: "serving the Wayland seat" in daemon.log_text(), 10, what="the daemon on the seat")
    start = daemon.count()
    seat_env = dict(os.environ, WAYLAND_DISPLAY=sway.socket)
    x_env = dict(os.environ, DISPLAY=x.display)
    latencies = {"seat to X": [], "X to seat": []}
    copies = 0
    owners = []
    deadline = time.monotonic() + min(ctx.duration, 60)
    while time.monotonic() < deadline:
        on_seat = copies % 2 == 0
        content = f"wayland churn copy {copies} {'on the seat' if on_seat else 'on X'} ".encode() + os.urandom(48).hex().encode()
        began = time.monotonic()
        if on_seat:
            owner = ctx.start(["wl-copy", "--foreground", "--type", "text/plain;charset=utf-8"], env=seat_env,
                              stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        else:
            owner = ctx.start(["xclip", "-quiet", "-i", "-selection", "clipboard"], env=x_env,
                              stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        owner.stdin.write(content)
        owner.stdin.close()
        owners.append(owner)
        copies += 1
        if on_seat:
            wait_until(lambda: x_read(x.display) == content, 10, interval=0.005, what=f"copy {copies} (seat) on X")
            latencies["seat to X"].append(time.monotonic() - began)
        else:
            wait_until(lambda: wl_read(sway.socket) == content, 10, interval=0.005, what=f"copy {copies} (X) on the seat")
            latencies["X to seat"].append(time.monotonic() - began)
        # The previous copier lost its selection (pasteboardd's copy of the other side's content replaced it) and
        # exits by itself: wait for it, within 10 s, and reap it.
        for previous in owners[:-1]:
            try:
                previous.wait(10)
            except subprocess.TimeoutExpired:
                raise ScenarioFailed(f"a copier ({previous.args[0]}) still runs 10 s after its copy was replaced")
            ctx.stop(previous)
            owners.remove(previous)
        if copies % 2 == 0 and daemon.count() != start + copies:
            raise ScenarioFailed(f"after {copies} copies the count is {daemon.count()}, not {start + copies}: an echo or a loss")
    settled = daemon.count()
    time.sleep(1.0)
    ctx.check(daemon.count() == settled, f"quiet once the churn stopped (count {settled} -> {daemon.count()})")
    ctx.check(settled == start + copies, f"one change per copy: {copies} copies moved the count {settled - start}")
    ctx.check(daemon.alive(), "the daemon is still running")
    ctx.check(not any("wayland churn copy" in line for line in daemon.log_lines()), "no content in the log")
    figures = []
    for direction, values in latencies.items():
        values.sort()
        figures.append(f"{direction}: {len(values)} copies, median {values[len(values) // 2] * 1000:.1f} ms, "
                       f"p95 {values[int(len(values) * 0.95)] * 1000:.1f} ms, max {values[-1] * 1000:.1f} ms")
    ctx.figure(f"{copies} copies alternating between the seat (wl-copy) and X (xclip) in {min(ctx.duration, 60):.0f} s, "
               f"each read back on the other side (xclip -o, wl-paste; both processes' start included) — "
               + "; ".join(figures) + f"; the count moved {settled - start}, exactly one per copy")
    for owner in owners:
        ctx.stop(owner)
