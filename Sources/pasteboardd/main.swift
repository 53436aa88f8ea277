print("pasteboardd")
