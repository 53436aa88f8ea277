// SystemSupport: placeholder until the module lands.
