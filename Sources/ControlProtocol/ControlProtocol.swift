// ControlProtocol: placeholder until the module lands.
