#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Drives Firefox for the real-application tests (see appdriver.py for the commands and answers).

Firefox runs on $DISPLAY with its X11 backend (not headless, which has no X clipboard), in a temporary
profile, and is driven through Marionette, its own automation protocol: JSON over a local TCP port that
Firefox picks and writes to the profile (MarionetteActivePort). The editor is a contenteditable <div>
of a data: page. Pasting and copying are key presses (WebDriver actions: Ctrl+V, Ctrl+A, Ctrl+C) that
Firefox dispatches to the page like keyboard input, so its shortcut handling runs cmd_paste, cmd_selectAll
and cmd_copy, which read and write the X CLIPBOARD through Firefox's own clipboard code. Answers: the
editor's innerHTML and innerText as {"html": ..., "text": ...}.

usage: firefox.py   (DISPLAY from the environment)
"""
import json
import os
import socket
import sys

from appdriver import EDITOR_PAGE, Browser, find_program, wait_until

# A profile for a test run: Marionette on a port Firefox picks, and none of the first-run pages,
# default-browser questions, updates, telemetry or network fetches a fresh profile would start.
PREFERENCES = {
    "marionette.port": 0,
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.startup.page": 0,
    "browser.aboutwelcome.enabled": False,
    "startup.homepage_welcome_url": "about:blank",
    "datareporting.policy.dataSubmissionEnabled": False,
    "datareporting.healthreport.uploadEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "app.update.disabledForTesting": True,
    "app.normandy.enabled": False,
    "browser.safebrowsing.update.enabled": False,
    "extensions.update.enabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "browser.newtabpage.enabled": False,
    "browser.sessionstore.resume_from_crash": False,
    "toolkit.startup.max_resumed_crashes": -1,
}

CONTROL = "\ue009"


class Marionette:
    """Marionette's protocol: each message is its length in decimal, a colon, and JSON; a command is
    [0, id, name, parameters], its answer [1, id, error, result]."""

    def __init__(self, port, timeout=60.0):
        self.socket = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.buffer = b""
        self.next_id = 0
        self.hello = self.receive()

    def receive(self):
        while b":" not in self.buffer:
            self.fill()
        length, rest = self.buffer.split(b":", 1)
        while len(rest) < int(length):
            self.fill()
            length, rest = self.buffer.split(b":", 1)
        self.buffer = rest[int(length):]
        return json.loads(rest[:int(length)])

    def fill(self):
        chunk = self.socket.recv(1 << 16)
        if not chunk:
            raise EOFError("Firefox closed the Marionette connection")
        self.buffer += chunk

    def call(self, name, **parameters):
        self.next_id += 1
        body = json.dumps([0, self.next_id, name, parameters]).encode()
        self.socket.sendall(str(len(body)).encode() + b":" + body)
        while True:
            kind, message_id, error, result = self.receive()
            if kind == 1 and message_id == self.next_id:
                if error:
                    raise RuntimeError(f"{name}: {error.get('error')}: {error.get('message')}")
                return result

    def close(self):
        self.socket.close()


class Firefox(Browser):
    name = "firefox"

    def start(self):
        binary = find_program("firefox-esr", "firefox-esr")
        profile = os.path.join(self.home, "profile")
        os.mkdir(profile)
        with open(os.path.join(profile, "user.js"), "w") as f:
            for key, value in PREFERENCES.items():
                f.write(f"user_pref({json.dumps(key)}, {json.dumps(value)});\n")
        env = dict(os.environ)
        # X11, never Wayland: the test is about the X CLIPBOARD.
        env["GDK_BACKEND"] = "x11"
        env.pop("WAYLAND_DISPLAY", None)
        # No crash reporter dialog and no "Firefox is already running" remote (another profile's instance).
        env["MOZ_CRASHREPORTER_DISABLE"] = "1"
        self.launch([binary, "--marionette", "--no-remote", "--new-instance", "--profile", profile], env=env)
        port_file = os.path.join(profile, "MarionetteActivePort")
        port = wait_until("Firefox wrote its Marionette port", lambda: read_port(port_file), 90)
        self.marionette = Marionette(port)
        session = self.marionette.call("WebDriver:NewSession", capabilities={"alwaysMatch": {"pageLoadStrategy": "normal"}})
        self.marionette.call("WebDriver:Navigate", url=EDITOR_PAGE)
        self.wait_for_editor()
        capabilities = session.get("capabilities", {})
        return f"{capabilities.get('browserName')} {capabilities.get('browserVersion')}"

    def call(self, function, *args):
        return self.marionette.call("WebDriver:ExecuteScript", script=f"return ({function})(...arguments)",
                                    args=list(args))["value"]

    def shortcut(self, letter):
        actions = [{"type": "keyDown", "value": CONTROL}, {"type": "keyDown", "value": letter},
                   {"type": "keyUp", "value": letter}, {"type": "keyUp", "value": CONTROL}]
        self.marionette.call("WebDriver:PerformActions", actions=[{"type": "key", "id": "keyboard", "actions": actions}])
        self.marionette.call("WebDriver:ReleaseActions")

    def quit(self):
        try:
            self.marionette.call("Marionette:Quit", flags=["eAttemptQuit"])
        except (EOFError, OSError, RuntimeError):
            pass
        return self.app.wait(30)


def read_port(path):
    try:
        with open(path) as f:
            return int(f.read().strip() or 0)
    except (OSError, ValueError):
        return 0


if __name__ == "__main__":
    sys.exit(Firefox().serve())
