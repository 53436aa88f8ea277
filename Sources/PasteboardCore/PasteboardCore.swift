// PasteboardCore: placeholder until the module lands.
