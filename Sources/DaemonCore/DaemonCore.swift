// DaemonCore: placeholder until the module lands.
