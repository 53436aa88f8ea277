# SPDX-License-Identifier: Apache-2.0
# Makes the LibreOffice clipboard fixtures Tests/RichTextTests/Fixtures/libreoffice/copied-*: a Writer document
# with a text frame ("Copied frame" / "with a second line"), copied as a user copies it, so that LibreOffice
# itself puts the RTF (and, for text, its own plain text) on the X clipboard. Not run by the tests.
#
# Needs LibreOffice and its Python bridge (Debian: python3-uno, for /usr/bin/python3), an X server and xclip:
#   Xvfb :77 & DISPLAY=:77 soffice -env:UserInstallation=file:///tmp/lo-profile --norestore --nodefault \
#       --accept='socket,host=127.0.0.1,port=2087;urp;' &
#   DISPLAY=:77 /usr/bin/python3 copy-libreoffice-frame.py frame   # the frame selected: an empty body and the frame
#   DISPLAY=:77 xclip -o -selection clipboard -t text/rtf > copied-frame.rtf   # (LibreOffice offers no plain text)
#   DISPLAY=:77 /usr/bin/python3 copy-libreoffice-frame.py text    # the text before the frame selected, the frame with it
#   DISPLAY=:77 xclip -o -selection clipboard -t text/rtf > copied-text-and-frame.rtf
#   DISPLAY=:77 xclip -o -selection clipboard -t UTF8_STRING > copied-text-and-frame.txt
import sys
import time

import uno
from com.sun.star.text.ControlCharacter import PARAGRAPH_BREAK

mode = sys.argv[1] if len(sys.argv) > 1 else "frame"
local = uno.getComponentContext()
resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
ctx = resolver.resolve("uno:socket,host=127.0.0.1,port=2087;urp;StarOffice.ComponentContext")
smgr = ctx.ServiceManager
desktop = smgr.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
doc = desktop.loadComponentFromURL("private:factory/swriter", "_blank", 0, ())
text = doc.Text
if mode == "text":
    text.insertString(text.End, "Body before the frame.", False)
frame = doc.createInstance("com.sun.star.text.TextFrame")
frame.Width = 6000
frame.Height = 2000
text.insertTextContent(text.End, frame, False)
frame.Text.insertString(frame.Text.End, "Copied frame", False)
frame.Text.insertControlCharacter(frame.Text.End, PARAGRAPH_BREAK, False)
frame.Text.insertString(frame.Text.End, "with a second line", False)
controller = doc.CurrentController
if mode == "frame":
    controller.select(frame)
else:
    controller.ViewCursor.gotoStart(False)
    controller.ViewCursor.gotoEnd(True)
dispatcher = smgr.createInstanceWithContext("com.sun.star.frame.DispatchHelper", ctx)
dispatcher.executeDispatch(controller.Frame, ".uno:Copy", "", 0, ())
time.sleep(1)
