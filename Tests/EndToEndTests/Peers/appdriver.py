# SPDX-License-Identifier: Apache-2.0
"""What the real-application drivers (chromium.py, firefox.py, writer.py) share.

A driver starts one application on $DISPLAY, in a private temporary profile, as its own process group,
then reads commands from standard input, one JSON object a line, and answers each with one JSON line:

  {"do": "paste"}                    empty the editor, paste CLIPBOARD as a user would, report the editor
  {"do": "copy", "html": "<b>x</b>"} put the HTML in the editor, select all, copy, report the editor
                                     (Writer: "save": PATH first saves the document there, as Flat ODF)
  {"do": "paste-image"}              (browsers) paste CLIPBOARD as a user would and report the picture the
                                     page's paste event got, as a web page reads it (clipboardData.files):
                                     {"image": {"type", "width", "height", "png": base64 of the canvas}}
  {"do": "quit"}                     quit the application as a user would, wait for it: {"quit": STATUS}

A report of the editor always has "runs", what the user sees: each piece of text with its look,
{"text": ..., "bold": bool, "italic": bool, "list": bool (in a bulleted or numbered list)}, and what
the application itself says about it (browsers: "html" and "text", the editor's innerHTML and
innerText; Writer: "paragraphs").

Before the first command it prints {"ready": ...} once the editor can be used. Failures are answered
{"error": "..."}. At end of input, SIGTERM or SIGINT it quits as for "quit". Whatever it started is
stopped by its process-group ID (never by name), a stuck application is killed after a timeout, and
the temporary profile is removed.
"""
import ctypes
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback


libc = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1


class Timeout(Exception):
    pass


def wait_until(what, condition, timeout=60.0, interval=0.05):
    """Polls `condition` until it returns something true, which is returned; Timeout after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise Timeout(f"timed out after {timeout:.0f} s waiting until {what}")
        time.sleep(interval)


def find_program(name, package):
    """The path of `name` on $PATH; FileNotFoundError naming the Debian package when it is not there."""
    path = shutil.which(name)
    if not path:
        raise FileNotFoundError(f"{name} is not installed (make test installs the package {package})")
    return path


class Application:
    """A started application: its own session and process group (start_new_session), so everything it
    forks (renderers, content processes, soffice.bin under its launcher script) can be signalled through
    one process-group ID. Its output goes to `log` (a file in the temporary directory)."""

    def __init__(self, argv, log, env=None, preexec_fn=None, **popen):
        self.log = open(log, "ab")

        def prepare():
            # Should the driver be killed outright, with no clean-up, its application goes too: the first
            # process gets SIGKILL (LibreOffice's oosplash blocks SIGTERM); Chromium's and Firefox's
            # helpers follow their parent, and soffice.bin goes with the X server.
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            if preexec_fn:
                preexec_fn()
        self.process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                                        env=env, start_new_session=True, preexec_fn=prepare, **popen)
        self.group = self.process.pid

    def running(self):
        return self.process.poll() is None

    def wait(self, timeout):
        """Waits for the application's first process to exit; its status, or None if it did not."""
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self, grace=10.0):
        """Stops what is left of the process group: SIGTERM, then SIGKILL after `grace` seconds. The group
        outlives its leader (a browser's helpers, soffice.bin under oosplash), so it is signalled even when
        the leader is gone."""
        for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5.0)):
            if not running_members(self.group):
                break
            try:
                os.killpg(self.group, sig)
            except ProcessLookupError:
                break
            try:
                wait_until("the application's processes are gone",
                           lambda: self.process.poll() is not None and not running_members(self.group), wait)
                break
            except Timeout:
                continue
        self.process.poll()
        self.log.close()


def running_members(group):
    """The PIDs of the processes of process group `group` that still run. Zombies are left out: they are
    dead, and an orphan's zombie waits for PID 1 to reap it, which in a container may never happen."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        state, _, pgrp = stat[stat.rindex(")") + 2:].split()[:3]
        if int(pgrp) == group and state != "Z":
            members.append(int(entry))
    return members


# The editor of the browser drivers: a contenteditable <div> on a data: page.
EDITOR_PAGE = ("data:text/html;charset=utf-8,<!doctype html><title>editor</title>"
               "<div id=editor contenteditable style='min-height:200px;border:1px solid'></div>")

# Records the first file of the next paste event, decoded and drawn on a canvas, in window.pastedPicture
# (or {"error": ...} when the paste carried no file or it did not decode).
LISTEN_FOR_PICTURE = """() => {
  window.pastedPicture = null;
  document.addEventListener('paste', async event => {
    const file = event.clipboardData.files[0];
    if (!file) { window.pastedPicture = {error: 'no file: ' + Array.from(event.clipboardData.types).join(',')}; return; }
    try {
      const bitmap = await createImageBitmap(file, {colorSpaceConversion: 'none', premultiplyAlpha: 'none'});
      const canvas = document.createElement('canvas');
      canvas.width = bitmap.width; canvas.height = bitmap.height;
      canvas.getContext('2d').drawImage(bitmap, 0, 0);
      window.pastedPicture = {image: {type: file.type, width: bitmap.width, height: bitmap.height,
                                      png: canvas.toDataURL('image/png').split(',')[1]}};
    } catch (error) { window.pastedPicture = {error: String(error)}; }
  }, {once: true});
  return true;
}"""

# JavaScript functions the browser drivers call in the page: the editor's report, and emptying or filling
# the editor and giving it the focus.
EDITOR_REPORT = """() => {
  const editor = document.getElementById('editor'), runs = [];
  const walker = document.createTreeWalker(editor, NodeFilter.SHOW_TEXT);
  for (let node; (node = walker.nextNode());) {
    if (!node.data.trim()) continue;
    const style = getComputedStyle(node.parentElement);
    runs.push({text: node.data, bold: parseInt(style.fontWeight) >= 600, italic: style.fontStyle != 'normal',
               list: !!node.parentElement.closest('li')});
  }
  return {html: editor.innerHTML, text: editor.innerText, runs: runs};
}"""
FILL_EDITOR = """(html) => {
  const editor = document.getElementById('editor');
  editor.innerHTML = html;
  editor.focus();
  return document.activeElement === editor;
}"""
EDITOR_READY = "() => document.readyState == 'complete' && !!document.getElementById('editor')"


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


class Driver:
    """One application under test. Subclasses implement start(), paste(), copy(html) and quit(); the
    temporary directory `self.home` holds the profile and the application's log."""

    name = "app"

    def __init__(self):
        self.home = tempfile.mkdtemp(prefix=f"pasteboard-{self.name}-")
        self.log = os.path.join(self.home, "app.log")
        self.app = None

    def launch(self, argv, **popen):
        """Starts the application (`self.app`), its output going to the log in the temporary directory."""
        self.app = Application(argv, self.log, **popen)

    def start(self):
        """Starts the application and opens an empty editor; what to report as ready (e.g. a version)."""
        raise NotImplementedError

    def paste(self):
        raise NotImplementedError

    def copy(self, html):
        raise NotImplementedError

    def quit(self):
        raise NotImplementedError

    def log_tail(self, lines=20):
        try:
            with open(self.log, "rb") as f:
                return b"\n".join(f.read().splitlines()[-lines:]).decode("utf-8", "replace")
        except OSError:
            return ""

    def finish(self):
        """Quits the application if it still runs (killing it if quitting fails), removes the profile.
        A SIGTERM meanwhile would cut the clean-up short: it is ignored from here on."""
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            if self.app and self.app.running():
                try:
                    self.quit()
                except Exception:
                    pass
        finally:
            if self.app:
                self.app.stop()
            shutil.rmtree(self.home, ignore_errors=True)

    def serve(self):
        """Starts the application, then answers commands from standard input until "quit" or its end."""
        def stop(signum, frame):
            raise SystemExit(128 + signum)
        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        try:
            try:
                reply({"ready": self.start()})
            except Exception as error:
                reply({"error": f"{self.name} did not start: {error}", "log": self.log_tail()})
                return 1
            for line in sys.stdin:
                if not line.strip():
                    continue
                command = json.loads(line)
                try:
                    if command["do"] == "paste":
                        reply(self.paste(**{k: v for k, v in command.items() if k != "do"}))
                    elif command["do"] == "copy":
                        reply(self.copy(**{k: v for k, v in command.items() if k != "do"}))
                    elif command["do"] == "paste-image":
                        reply(self.paste_image())
                    elif command["do"] == "quit":
                        status = self.quit()
                        reply({"quit": status})
                        return 0
                    else:
                        reply({"error": f"unknown command {command['do']!r}"})
                except Exception as error:
                    traceback.print_exc()
                    reply({"error": f"{type(error).__name__}: {error}", "log": self.log_tail()})
            return 0
        finally:
            self.finish()


class Browser(Driver):
    """A browser whose editor is EDITOR_PAGE. Subclasses start it, open EDITOR_PAGE, and provide call()
    and shortcut(); pasting and copying are the same for every browser."""

    def call(self, function, *args):
        """Calls the JavaScript `function` (its source) in the page with `args`; its result."""
        raise NotImplementedError

    def shortcut(self, letter):
        """Presses and releases Ctrl+`letter` in the page."""
        raise NotImplementedError

    def wait_for_editor(self):
        wait_until("the editor page is loaded", lambda: self.call(EDITOR_READY))

    def editor(self):
        return self.call(EDITOR_REPORT)

    def fill_editor(self, html):
        if not self.call(FILL_EDITOR, html):
            raise RuntimeError("the editor did not take the focus")

    def paste(self):
        self.fill_editor("")
        self.shortcut("v")
        return wait_until("the paste reached the editor", lambda: (lambda e: e if e["html"] else None)(self.editor()), 30)

    def paste_image(self):
        """What a web page gets from a picture pasted with Ctrl+V: the first file of the paste event's
        clipboardData, decoded by the browser and drawn on a canvas (its pixels, as PNG)."""
        self.call(LISTEN_FOR_PICTURE)
        self.fill_editor("")
        self.shortcut("v")
        return wait_until("the page read the pasted picture", lambda: self.call("() => window.pastedPicture"), 30)

    def copy(self, html):
        self.fill_editor(html)
        self.shortcut("a")
        self.shortcut("c")
        return self.editor()
