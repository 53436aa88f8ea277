#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Drives LibreOffice Writer for the real-application tests (see appdriver.py for the commands).

soffice runs on $DISPLAY with its plain X11 user interface (the "gen" VCL plugin; --headless would
have no X clipboard), in a temporary user installation, with a new Writer document in a window, and is
driven through UNO (python3-uno) over a named pipe (--accept). Pasting and copying dispatch the
commands the Edit menu and Ctrl+V/Ctrl+A/Ctrl+C run (.uno:Paste, .uno:SelectAll, .uno:Copy), which
read and write the X CLIPBOARD through LibreOffice's own clipboard code. {"do": "paste", "style": NAME}
first gives the empty document's paragraph that paragraph style. Answers describe what the user sees:

  {"paragraphs": [{"text": ..., "style": PARAGRAPH STYLE, "list": true if numbered or bulleted,
                   "portions": [{"text": ..., "bold": bool, "italic": bool}, ...]}, ...]}

usage: writer.py   (DISPLAY from the environment)
"""
import os
import subprocess
import sys

import uno
from com.sun.star.beans import PropertyValue
from com.sun.star.connection import NoConnectException

from appdriver import Driver, find_program, wait_until


def properties(**values):
    return tuple(PropertyValue(Name=name, Value=value) for name, value in values.items())


class Writer(Driver):
    name = "writer"

    def start(self):
        binary = find_program("soffice", "libreoffice-writer")
        pipe = os.path.basename(self.home)
        env = dict(os.environ)
        # The plain X11 user interface: no GTK or Qt, whose plugins are not installed anyway.
        env["SAL_USE_VCLPLUGIN"] = "gen"
        self.launch([binary, "-env:UserInstallation=" + uno.systemPathToFileUrl(os.path.join(self.home, "user")),
                     # No document recovery, splash screen, start centre or lock-file questions.
                     "--norestore", "--nologo", "--nodefault", "--nolockcheck",
                     f"--accept=pipe,name={pipe};urp;StarOffice.ComponentContext"], env=env)
        local = uno.getComponentContext()
        resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)

        def connect():
            if not self.app.running():
                raise RuntimeError(f"soffice exited with status {self.app.process.returncode}")
            try:
                return resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
            except NoConnectException:
                return None
        self.context = wait_until("soffice accepts UNO connections", connect, 120, 0.2)
        manager = self.context.ServiceManager
        self.desktop = manager.createInstanceWithContext("com.sun.star.frame.Desktop", self.context)
        self.dispatcher = manager.createInstanceWithContext("com.sun.star.frame.DispatchHelper", self.context)
        self.document = self.desktop.loadComponentFromURL("private:factory/swriter", "_blank", 0, ())
        self.frame = self.document.CurrentController.Frame
        wait_until("the document window is visible", lambda: self.frame.ContainerWindow.isVisible())
        provider = manager.createInstanceWithContext("com.sun.star.configuration.ConfigurationProvider", self.context)
        about = provider.createInstanceWithArguments("com.sun.star.configuration.ConfigurationAccess",
                                                     properties(nodepath="/org.openoffice.Setup/Product"))
        return f"{about.ooName} {about.ooSetupVersionAboutBox}"

    def dispatch(self, command):
        self.dispatcher.executeDispatch(self.frame, command, "", 0, ())

    def clear(self, style=None):
        self.document.Text.setString("")
        cursor = self.document.CurrentController.ViewCursor
        cursor.gotoStart(False)
        if style:
            cursor.ParaStyleName = style

    def report(self):
        paragraphs = []
        for paragraph in each(self.document.Text):
            if not paragraph.supportsService("com.sun.star.text.Paragraph"):
                paragraphs.append({"text": None, "style": None, "list": False, "portions": [],
                                   "object": paragraph.ImplementationName})
                continue
            portions = [{"text": portion.String, "bold": portion.CharWeight >= 150.0,
                         "italic": portion.CharPosture.value in ("ITALIC", "OBLIQUE")}
                        for portion in each(paragraph)
                        if portion.TextPortionType == "Text" and portion.String]
            paragraphs.append({"text": paragraph.String, "style": paragraph.ParaStyleName,
                               "list": bool(paragraph.NumberingStyleName or paragraph.NumberingIsNumber),
                               "portions": portions})
        runs = [dict(portion, list=paragraph["list"]) for paragraph in paragraphs for portion in paragraph["portions"]]
        return {"paragraphs": paragraphs, "runs": runs}

    def wait_for_current_targets(self):
        """Waits until LibreOffice sees the current owner's targets. Its X11 clipboard keeps the last
        TARGETS it read for up to two seconds (SelectionManager::getPasteDataTypes), whoever owns the
        selection by then: a paste right after another program copied asks the new owner for types
        the old one had, gets nothing and pastes nothing. The rich types (MIME names other than
        text/plain, which LibreOffice renames) of its list and of the owner's TARGETS must agree."""
        clipboard = self.context.ServiceManager.createInstanceWithContext(
            "com.sun.star.datatransfer.clipboard.SystemClipboard", self.context)
        owner = rich_types(subprocess.run(["xclip", "-o", "-selection", "clipboard", "-t", "TARGETS"],
                                          capture_output=True, text=True, timeout=30).stdout.splitlines())

        def seen():
            contents = clipboard.getContents()
            flavors = contents.getTransferDataFlavors() if contents else ()
            return rich_types(flavor.MimeType for flavor in flavors if flavor.MimeType != "image/bmp") == owner
        wait_until("LibreOffice sees the clipboard owner's targets", seen, 10, 0.1)

    def paste(self, style=None):
        self.clear(style)
        self.wait_for_current_targets()
        self.dispatch(".uno:Paste")
        wait_until("the paste reached the document", lambda: self.document.Text.String, 30)
        return self.report()

    def copy(self, html, save=None):
        self.clear()
        path = os.path.join(self.home, "copy.html")
        with open(path, "w", encoding="utf-8") as f:
            f.write(f"<!doctype html><meta charset=utf-8><body>{html}</body>")
        cursor = self.document.Text.createTextCursor()
        cursor.insertDocumentFromURL(uno.systemPathToFileUrl(path), properties(FilterName="HTML (StarWriter)"))
        if save:
            # A saved document: LibreOffice's object descriptor target then names its path.
            os.makedirs(os.path.dirname(save), exist_ok=True)
            self.document.storeAsURL(uno.systemPathToFileUrl(save), properties(FilterName="OpenDocument Text Flat XML"))
        self.dispatch(".uno:SelectAll")
        self.dispatch(".uno:Copy")
        return self.report()

    def quit(self):
        # A modified document would ask whether to save it.
        self.document.setModified(False)
        try:
            self.desktop.terminate()
        except Exception:
            pass  # the bridge may close under the call as soffice exits
        return self.app.wait(30)


def rich_types(types):
    return {name for name in types if "/" in name and not name.startswith("text/plain")}


def each(container):
    enumeration = container.createEnumeration()
    while enumeration.hasMoreElements():
        yield enumeration.nextElement()


if __name__ == "__main__":
    sys.exit(Writer().serve())
