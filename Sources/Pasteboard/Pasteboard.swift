// Pasteboard: placeholder until the module lands.
