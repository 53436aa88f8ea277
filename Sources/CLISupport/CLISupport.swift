// CLISupport: placeholder until the module lands.
