// XClient: placeholder until the module lands.
