# SPDX-License-Identifier: Apache-2.0
"""A Wayland seat and an X display, one pasteboard, under churn (issue 22) — a separate Xvfb (`wayland`), and sway's
own XWayland with the compositor's clipboard bridge at work (`xwayland`): pasteboardd serves a headless sway's
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


def churn(ctx, daemon, seat, display, seconds, phase=""):
    """Copies alternately on the seat (wl-copy) and on X (xclip) for `seconds`, each read back on the other side byte
    for byte, the count checked every second copy; returns (copies, latencies by direction, the count at the start)."""
    start = daemon.count()
    seat_env = dict(os.environ, WAYLAND_DISPLAY=seat)
    x_env = dict(os.environ, DISPLAY=display)
    latencies = {"seat to X": [], "X to seat": []}
    copies = 0
    owners = []
    deadline = time.monotonic() + seconds
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
            wait_until(lambda: x_read(display) == content, 10, interval=0.005, what=f"copy {copies}{phase} (seat) on X")
            latencies["seat to X"].append(time.monotonic() - began)
        else:
            wait_until(lambda: wl_read(seat) == content, 10, interval=0.005, what=f"copy {copies}{phase} (X) on the seat")
            latencies["X to seat"].append(time.monotonic() - began)
        # The previous copier lost its selection (the other side's copy replaced it) and exits by itself: wait for
        # it, within 10 s, and reap it.
        for previous in owners[:-1]:
            try:
                previous.wait(10)
            except subprocess.TimeoutExpired:
                raise ScenarioFailed(f"a copier ({previous.args[0]}){phase} still runs 10 s after its copy was replaced")
            ctx.stop(previous)
            owners.remove(previous)
        if copies % 2 == 0 and daemon.count() != start + copies:
            raise ScenarioFailed(f"after {copies} copies{phase} the count is {daemon.count()}, not {start + copies}: an echo or a loss")
    for owner in owners:
        ctx.stop(owner)
    return copies, latencies, start


def summary(latencies):
    figures = []
    for direction, values in latencies.items():
        values.sort()
        figures.append(f"{direction}: {len(values)} copies, median {values[len(values) // 2] * 1000:.1f} ms, "
                       f"p95 {values[int(len(values) * 0.95)] * 1000:.1f} ms, max {values[-1] * 1000:.1f} ms")
    return "; ".join(figures)


def settle(ctx, daemon, start, copies, what):
    settled = daemon.count()
    time.sleep(1.0)
    ctx.check(daemon.count() == settled, f"quiet once the churn stopped{what} (count {settled} -> {daemon.count()})")
    ctx.check(settled == start + copies, f"one change per copy{what}: {copies} copies moved the count {settled - start}")
    return settled


@scenario("wayland", "a Wayland seat and an X display, one pasteboard, churn on both sides: every copy pastes on "
                     "the other side byte for byte, one change each, copiers exit once replaced, quiet once the churn stops")
def wayland(ctx):
    x = ctx.xvfb()
    sway = ctx.sway()
    daemon = ctx.daemon(x.display, args=["--display", x.display, "--wayland", sway.socket])
    daemon.start()
    wait_until(lambda: "serving the Wayland seat" in daemon.log_text(), 10, what="the daemon on the seat")
    seconds = min(ctx.duration, 60)
    copies, latencies, start = churn(ctx, daemon, sway.socket, x.display, seconds)
    settled = settle(ctx, daemon, start, copies, "")
    ctx.check(daemon.alive(), "the daemon is still running")
    ctx.check(not any("wayland churn copy" in line for line in daemon.log_lines()), "no content in the log")
    ctx.figure(f"{copies} copies alternating between the seat (wl-copy) and X (xclip) in {seconds:.0f} s, "
               f"each read back on the other side (xclip -o, wl-paste; both processes' start included) — "
               + summary(latencies) + f"; the count moved {settled - start}, exactly one per copy")


def focus(display):
    """The X input focus on `display`: 0 for None, 1 for PointerRoot, else the window."""
    script = "from Xlib import display\nf = display.Display().get_input_focus().focus\nprint(getattr(f, 'id', f))\n"
    result = subprocess.run(["/usr/bin/python3", "-c", script], env=dict(os.environ, DISPLAY=display), capture_output=True, timeout=20)
    return int(result.stdout.strip() or 0)


@scenario("xwayland", "sway's own XWayland and its seat, one pasteboard, with the compositor's bridge at work: churn "
                      "with an X window focused (the bridge carries both ways) and then with none (the daemon does): "
                      "every copy pastes on the other side, one change each, no fight with the bridge")
def xwayland(ctx):
    sway = ctx.sway(xwayland=True)
    display = sway.xwayland_display()
    # An X window mapped and focused: sway gives XWayland's window manager the seat, and its bridge acts.
    xterm = ctx.start(["xterm"], env=dict(os.environ, DISPLAY=display), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until(lambda: focus(display) > 1, 15, what="the xterm has the focus")
    daemon = ctx.daemon(display, args=["--display", display, "--wayland", sway.socket])
    daemon.start()
    wait_until(lambda: "XWayland display" in daemon.log_text(), 10, what="the daemon found the compositor's bridge")
    seconds = min(ctx.duration, 60) / 2
    focused, focused_latencies, start = churn(ctx, daemon, sway.socket, display, seconds, " (X window focused)")
    settle(ctx, daemon, start, focused, " (X window focused)")
    ctx.stop(xterm)
    wait_until(lambda: focus(display) == 0, 15, what="nothing has the focus")
    unfocused, unfocused_latencies, start = churn(ctx, daemon, sway.socket, display, seconds, " (nothing focused)")
    settle(ctx, daemon, start, unfocused, " (nothing focused)")
    ctx.check(daemon.alive(), "the daemon is still running")
    ctx.check(not any("wayland churn copy" in line for line in daemon.log_lines()), "no content in the log")
    ctx.figure(f"with an X window focused: {focused} copies in {seconds:.0f} s — " + summary(focused_latencies)
               + f"; with none: {unfocused} copies in {seconds:.0f} s — " + summary(unfocused_latencies)
               + "; one change per copy in both")
