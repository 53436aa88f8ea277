#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Drives Chromium for the real-application tests (see appdriver.py for the commands and answers).

Chromium runs on $DISPLAY with its X11 backend (not headless, which has a clipboard of its own), in a
temporary profile, and is driven through the DevTools protocol over --remote-debugging-pipe (file
descriptors 3 and 4: no port, no package). The editor is a contenteditable <div> of a data: page.
Pasting and copying are key presses delivered by DevTools (Input.dispatchKeyEvent: Ctrl+V, Ctrl+A,
Ctrl+C, each carrying the editing command Chromium's key bindings give it: paste, selectAll, copy), so
the page's editor reads and writes the X CLIPBOARD through Chromium's own clipboard code. Answers: the editor's innerHTML
and innerText as {"html": ..., "text": ...}.

usage: chromium.py   (DISPLAY from the environment)
"""
import fcntl
import json
import os
import select
import sys

from appdriver import EDITOR_PAGE, Browser, Timeout, find_program, wait_until

# The editing commands Chromium's key bindings give Ctrl+V, Ctrl+A and Ctrl+C.
COMMANDS = {"v": "paste", "a": "selectAll", "c": "copy"}


class DevTools:
    """The DevTools protocol over Chromium's pipe: JSON messages, each ended by a NUL byte."""

    def __init__(self, write_fd, read_fd):
        self.write_fd, self.read_fd = write_fd, read_fd
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def call(self, method, session=None, timeout=30.0, **params):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self.write_fd, json.dumps(message).encode() + b"\0")
        while True:
            answer = self.receive(timeout)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            if "method" in answer:
                self.events.append(answer)

    def receive(self, timeout):
        while b"\0" not in self.buffer:
            ready, _, _ = select.select([self.read_fd], [], [], timeout)
            if not ready:
                raise Timeout(f"Chromium did not answer within {timeout:.0f} s")
            chunk = os.read(self.read_fd, 1 << 16)
            if not chunk:
                raise EOFError("Chromium closed its DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)


def high_fd(fd):
    """A copy of `fd` numbered 10 or more, so that moving the pipes to 3 and 4 cannot overwrite them."""
    copy = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return copy


class Chromium(Browser):
    name = "chromium"

    def start(self):
        binary = find_program("chromium", "chromium")
        to_chromium_r, to_chromium_w = map(high_fd, os.pipe())
        from_chromium_r, from_chromium_w = map(high_fd, os.pipe())

        def pipes_at_3_and_4():
            os.dup2(to_chromium_r, 3)
            os.dup2(from_chromium_w, 4)

        argv = [binary,
                # As root, Chromium refuses to start with its sandbox.
                "--no-sandbox",
                # X11, never Wayland or headless: the test is about the X CLIPBOARD.
                "--ozone-platform=x11",
                # No keyring (no D-Bus session here), no first-run UI, no default-browser question.
                "--password-store=basic", "--no-first-run", "--no-default-browser-check",
                # Xvfb has no GPU: skip the probe and its fallbacks.
                "--disable-gpu",
                # Nothing to fetch: no network here.
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--user-data-dir=" + os.path.join(self.home, "profile"),
                "--remote-debugging-pipe",
                "--window-size=640,480", "--window-position=0,0",
                "about:blank"]
        self.launch(argv, pass_fds=(3, 4), preexec_fn=pipes_at_3_and_4)
        os.close(to_chromium_r)
        os.close(from_chromium_w)
        self.devtools = DevTools(to_chromium_w, from_chromium_r)
        version = self.devtools.call("Browser.getVersion", timeout=60)
        page = wait_until("Chromium has a page", lambda: [t for t in self.devtools.call("Target.getTargets")["targetInfos"]
                                                          if t["type"] == "page"])[0]
        self.session = self.devtools.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]
        self.page("Page.navigate", url=EDITOR_PAGE)
        self.wait_for_editor()
        return version["product"]

    def page(self, method, **params):
        return self.devtools.call(method, session=self.session, **params)

    def call(self, function, *args):
        expression = f"({function})(...{json.dumps(list(args))})"
        result = self.page("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def shortcut(self, letter):
        """On Linux the browser, not the page, maps shortcuts to editing commands (its key bindings),
        and DevTools key events skip that step: the event carries the command Chromium's key bindings
        give Ctrl+`letter`, which the page's editor then executes."""
        code = ord(letter.upper())
        for kind, commands in (("rawKeyDown", [COMMANDS[letter]]), ("keyUp", [])):
            self.page("Input.dispatchKeyEvent", type=kind, modifiers=2, key=letter, code="Key" + letter.upper(),
                      windowsVirtualKeyCode=code, commands=commands)

    def quit(self):
        try:
            self.devtools.call("Browser.close", timeout=10)
        except (EOFError, Timeout, OSError):
            pass
        return self.app.wait(30)


if __name__ == "__main__":
    sys.exit(Chromium().serve())
