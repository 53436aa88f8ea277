// Selection: placeholder until the module lands.
